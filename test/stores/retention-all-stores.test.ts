/**
 * Retention (agents/context seed): permanent | run | none, honoured the same way whatever store
 * context-persistent uses — memory, JSONL, PostgreSQL, Redis, hybrid (real servers).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import type { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount } from "../../modules/context-persistent/index.js";
import { createHistoryStore, type HistoryStoreConfig } from "../../src/modules/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

let dir: string;
const schema = testSchemaName();
const keyPrefix = testKeyPrefix();
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-retention-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await dropSchemas(schema);
  await dropPrefixes(keyPrefix);
});

const stores: Record<string, () => HistoryStoreConfig> = {
  jsonl: () => ({ type: "jsonl", storagePath: dir, fsync: "never" }),
  postgres: () => ({ type: "postgres", url: PG_URL, schema }),
  redis: () => ({ type: "redis", url: REDIS_URL, keyPrefix }),
  hybrid: () => ({ type: "hybrid", hot: { type: "redis", url: REDIS_URL, keyPrefix: `${keyPrefix}h:` }, cold: { type: "postgres", url: PG_URL, schema } }),
};

async function stored(config: HistoryStoreConfig, sessionId: string): Promise<unknown[]> {
  const store = createHistoryStore(config);
  try {
    return (await store.read(sessionId)).map((m) => m.content);
  } finally {
    await store.close();
  }
}

describe.each(Object.entries(stores))("retention on the %s store", (name, config) => {
  async function open(retention: "permanent" | "run" | "none", sessionId: string) {
    const coordinator = new Coordinator({ sessionId });
    const context = (await mount(coordinator, { store: config() as never, strict: true, retention })) as HistoryContextManager;
    return { context, close: () => coordinator.cleanup() };
  }

  it("permanent keeps the run's messages; run clears them when the run ends; none never writes", async () => {
    for (const retention of ["permanent", "run", "none"] as const) {
      const sessionId = `${name}-${retention}`;
      const { context, close } = await open(retention, sessionId);
      await context.addMessage({ role: "user", content: "before" });
      const runId = context.startRun(`run-${retention}`);
      await context.addMessage({ role: "user", content: "during" });
      await context.endRun(runId);
      await close();
      const expected = { permanent: ["before", "during"], run: ["before"], none: [] }[retention];
      expect(await stored(config(), sessionId), `${name}/${retention}`).toEqual(expected);
    }
  });
});
