import { afterAll, describe, expect, it } from "vitest";
import type { HistoryStore, Message } from "@amplifier-ts/contracts";
import { createInspector, historyStoreSource } from "@amplifier-ts/inspector";
import { parseStoreUrl } from "@amplifier-ts/stores";
import { createHistoryStore } from "../../src/modules/stores.js";
import { REDIS_URL, uniqueName } from "../memory/memory-support.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

/** The Inspector reads any history store: PostgreSQL and Redis (real servers), as `serve --sessions <url>` opens them. */
const schema = testSchemaName();
const keyPrefix = uniqueName("inspector-test:");
const opened: HistoryStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  await dropSchemas(schema);
  const cleaner = await createHistoryStore(parseStoreUrl(`${REDIS_URL}?keyPrefix=${encodeURIComponent(keyPrefix)}`));
  for (const s of await cleaner.listSessions()) await cleaner.deleteSession(s.sessionId);
  await cleaner.close();
});

const conversation: Message[] = [
  { role: "user", content: "what changed?", metadata: { id: "q1", timestamp: "2026-11-02T09:00:00.000Z" } },
  { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "git_log", arguments: "{}" } }], metadata: { id: "a1" } },
  { role: "tool", tool_call_id: "c1", content: "3 commits", metadata: { id: "t1" } },
  { role: "assistant", content: "three commits", metadata: { id: "a2" } },
];

describe.each([
  ["postgres", () => `${PG_URL}?schema=${schema}`],
  ["redis", () => `${REDIS_URL}?keyPrefix=${encodeURIComponent(keyPrefix)}`],
])("the Inspector over a %s store", (kind, url) => {
  it("lists its sessions with counts and shows one with tool calls paired to their results", async () => {
    const store = await createHistoryStore(parseStoreUrl(url()));
    opened.push(store);
    await store.appendMany("chat-1", conversation);
    const inspector = createInspector({ sources: [historyStoreSource(store)] });
    const sessions = await inspector.listSessions();
    expect(sessions).toEqual([expect.objectContaining({ source: kind, sessionId: "chat-1", messages: 4, events: 0, live: false })]);
    const session = await inspector.session(kind, "chat-1");
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(session.messages[1]!.toolCalls).toEqual([{ id: "c1", name: "git_log", arguments: "{}" }]);
    expect(session.messages[2]!.resultFor).toEqual(["c1"]);
    await expect(inspector.session(kind, "chat-2")).rejects.toMatchObject({ code: "INSPECTOR/UNKNOWN_SESSION" });
  });

  it("follows a session another store instance writes (as an agent in another process): the new count is pushed, last activity is the newest message's time", async () => {
    const writer = await createHistoryStore(parseStoreUrl(url()));
    const reader = await createHistoryStore(parseStoreUrl(url()));
    opened.push(writer, reader);
    await writer.appendMany("chat-live", conversation.slice(0, 2));
    const inspector = createInspector({ sources: [historyStoreSource(reader)], pollMs: 50 });
    const counts: number[] = [];
    const stop = inspector.follow(kind, "chat-live", (n) => counts.push(n));
    try {
      expect(await inspector.has(kind, "chat-live")).toBe(true);
      expect(await inspector.has(kind, "chat-nobody")).toBe(false);
      // The follower's first look sets its baseline.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.appendMany("chat-live", [...conversation.slice(2), { role: "user", content: "and now?", metadata: { id: "q2", timestamp: "2026-11-02T09:05:00.000Z" } }]);
      await expect.poll(() => counts.at(-1), { timeout: 20_000 }).toBe(5);
      const listed = (await inspector.listSessions()).find((s) => s.sessionId === "chat-live");
      expect(listed).toMatchObject({ messages: 5, lastActivity: "2026-11-02T09:05:00.000Z" });
    } finally {
      stop();
      inspector.close();
    }
  });
});
