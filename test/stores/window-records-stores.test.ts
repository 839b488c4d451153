/**
 * The window records (what each request sent, issue 24 item 8) live beside the session in whatever
 * store holds it: context-persistent writes them as the session's attachments windows-<n>, and the
 * Inspector reads them back — here from real PostgreSQL and Redis, as from JSONL elsewhere.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createInspector, historyStoreSource } from "@amplifier-ts/inspector";
import { loadHistoryStore } from "@amplifier-ts/stores";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

const schema = testSchemaName();
const keyPrefix = testKeyPrefix();
afterAll(async () => {
  await dropSchemas(schema);
  await dropPrefixes(keyPrefix);
});

const STORES = {
  postgres: { type: "postgres", url: PG_URL, schema },
  redis: { type: "redis", url: REDIS_URL, keyPrefix },
} as const;

describe.each(Object.entries(STORES))("window records on %s", (kind, storeConfig) => {
  it("are written beside the session and read back by the Inspector, one per request", async () => {
    const sessionId = `records-${kind}`;
    const coordinator = new Coordinator({ sessionId });
    const context = await mountPersistent(coordinator, { sessionId, store: storeConfig, model: "gpt-4o-mini", strict: true });
    context.setTools([{ type: "function", function: { name: "search", parameters: { type: "object", properties: {} } } }]);
    for (let k = 0; k < 3; k++) {
      await context.addMessage({ role: "user", content: `question ${k}`, metadata: { id: `u${k}` } });
      await context.getMessagesForRequest(2_000);
      await context.addMessage({ role: "assistant", content: `answer ${k}`, metadata: { id: `a${k}` } });
    }
    await coordinator.cleanup();

    const store = await loadHistoryStore(storeConfig);
    try {
      const view = await createInspector({ sources: [historyStoreSource(store, kind)] }).session(kind, sessionId, { analysis: false });
      expect(view.recordError).toBeUndefined();
      expect(view.recorded?.map((t) => [t.turn, t.messageIndex, t.budget, t.model, t.tools.map((x) => x.name)])).toEqual([
        [1, 1, 2_000, "gpt-4o-mini", ["search"]],
        [2, 3, 2_000, "gpt-4o-mini", ["search"]],
        [3, 5, 2_000, "gpt-4o-mini", ["search"]],
      ]);
    } finally {
      await store.close();
    }
  });
});
