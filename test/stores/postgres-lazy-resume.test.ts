/**
 * PostgreSQL open() is lazy (modules/store-postgres/pg-resume.ts): it reads every row's facts and
 * the stored JSON of the newest rows, a worker thread fetches the rest in the background, and
 * each message is parsed only when something reads it. These tests hold it to the eager open it
 * replaced: the same messages, the same windows, rows written before schema version 3 still load.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { acquirePool } from "@amplifier-ts/pg-kit";
import { migrate, SCHEMA_VERSION, tableNames } from "../../modules/store-postgres/postgres-migrations.js";
import { storedSize } from "../../contracts/index.js";
import { isUnparsed } from "../../modules/stores/lazy-message.js";
import { PostgresStore } from "../../src/modules/stores.js";
import { generateHistory } from "../bench/history-generator.js";
import { bigLog, NEEDLE, toolRound } from "../spill/spill-fixtures.js";
import { PG_URL, queryOnce, schemasDroppedAfterAll } from "./postgres-support.js";

const fresh = schemasDroppedAfterAll();

const json = (messages: readonly Message[]) => JSON.parse(JSON.stringify(messages)) as unknown;
/** ~6 MB of agent-loop history: more than open() reads itself (4 MB), so the loader thread has pages to fetch. */
const BIG = generateHistory({ count: 3_000, seed: 20, idPrefix: "lz" });

async function written(schema: string, sessionId: string, history: readonly Message[]): Promise<void> {
  const writer = new PostgresStore({ url: PG_URL, schema });
  for (let i = 0; i < history.length; i += 500) await writer.appendMany(sessionId, history.slice(i, i + 500));
  await writer.close();
}

describe("PostgresStore: lazy open", () => {
  // Spilling on (the default) and off: the lazy open's windows equal the eager context's either way.
  // With it on they once differed (134 vs 179 messages at 128k): a lazy PostgreSQL row answered
  // MESSAGE_STORED_SIZE with end - start, which is 1 for a row, so spilling saw every unparsed row as
  // too small to spill. The row's size is its stored `bytes` now.
  it.each([{ spill: "on", options: {} }, { spill: "off", options: { spill: false as const } }])("spill $spill: a window parses only what it shows; windows, messages and search equal an eager context's", async ({ options }) => {
    const schema = fresh();
    await written(schema, "s", BIG);
    const store = new PostgresStore({ url: PG_URL, schema });
    const { messages } = await store.open("s");
    expect(messages.every(isUnparsed)).toBe(true);
    const lazy = new HistoryContextManager({ moduleName: "pg-lazy-test", options, store, sessionId: "s", initialMessages: messages });
    const eager = new HistoryContextManager({ moduleName: "pg-lazy-test", options, initialMessages: json(BIG) as Message[] });
    try {
      const window = await lazy.getMessagesForRequest(128_000);
      expect(json(window)).toEqual(json(await eager.getMessagesForRequest(128_000)));
      const parsed = messages.filter((m) => !isUnparsed(m)).length;
      expect(parsed).toBeGreaterThanOrEqual(window.length - 2);
      expect(parsed).toBeLessThan(messages.length / 4);
      for (const budget of [2_000, 32_000]) expect(json(await lazy.getMessagesForRequest(budget)), `budget ${budget}`).toEqual(json(await eager.getMessagesForRequest(budget)));
      expect(json(await lazy.getMessages())).toEqual(json(BIG));
      const hits = async (c: HistoryContextManager) => (await c.search("error", { k: 5 })).map((h) => h.message.metadata?.id);
      expect(await hits(lazy)).toEqual(await hits(eager));
    } finally {
      await lazy.close();
      await eager.close();
      await store.close();
    }
  });

  it("an unparsed row's stored size is its stored JSON length: spilling picks the same results as over parsed messages", async () => {
    const schema = fresh();
    const log = bigLog(200_000);
    const history = toolRound("Why did order ord-77123 fail?", log).map((m, i) => ({ ...m, metadata: { id: `sp-${i}` } }) as Message);
    await written(schema, "s", history);
    const store = new PostgresStore({ url: PG_URL, schema });
    const { messages } = await store.open("s");
    // Read before anything parses it: a row's size, not 1 (end - start of a row position).
    expect(messages.map((m) => storedSize(m))).toEqual(history.map((m) => Buffer.byteLength(JSON.stringify(m))));
    const lazy = new HistoryContextManager({ moduleName: "pg-lazy-test", options: {}, store, sessionId: "s", initialMessages: messages });
    const eager = new HistoryContextManager({ moduleName: "pg-lazy-test", options: {}, initialMessages: json(history) as Message[] });
    try {
      const window = await lazy.getMessagesForRequest(16_000);
      expect(json(window)).toEqual(json(await eager.getMessagesForRequest(16_000)));
      const excerpt = String(window[2]!.content);
      expect(excerpt).toMatch(/spill-[0-9a-f]{24}/);
      expect(excerpt).toContain(NEEDLE);
      expect(excerpt.length).toBeLessThan(log.length / 10);
      expect(lazy.spilledOf("sp-2")?.bytes).toBe(log.length);
    } finally {
      await lazy.close();
      await eager.close();
      await store.close();
    }
  });

  it("a row not fetched yet is read synchronously (the oldest, right after open); every message equals read()", async () => {
    const schema = fresh();
    await written(schema, "s", BIG);
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      const { messages } = await store.open("s");
      expect(json([messages[1]!, messages[2]!])).toEqual(json(BIG.slice(1, 3)));
      expect(json(messages)).toEqual(json(await store.read("s")));
    } finally {
      await store.close();
    }
  });

  it("close() waits for the background fetch: every message stays readable after it", async () => {
    const schema = fresh();
    await written(schema, "s", BIG);
    const store = new PostgresStore({ url: PG_URL, schema });
    const { messages } = await store.open("s");
    await store.close();
    expect(messages.every(isUnparsed)).toBe(true);
    expect(json(messages)).toEqual(json(BIG));
  });

  it("migration 3: rows written by version 2 load (parsed and checked at open, as before); rows written after it load lazily", async () => {
    const schema = fresh();
    const names = tableNames(schema, "amplifier_messages");
    const old = BIG.slice(0, 40);
    const lease = await acquirePool(PG_URL);
    try {
      expect(await migrate(lease.pool, names, 2)).toEqual([1, 2]);
      const texts = old.map((m) => JSON.stringify(m));
      // Version 2's append statement: the message as jsonb only.
      await lease.pool.query(
        `WITH s AS (
           INSERT INTO ${names.sessions} AS s (agent_id, session_id, count, bytes, updated_at) VALUES ('default', $1, $2, $3, now())
           ON CONFLICT (agent_id, session_id) DO UPDATE SET count = s.count + EXCLUDED.count, bytes = s.bytes + EXCLUDED.bytes, updated_at = now()
           RETURNING count - $2::bigint AS first)
         INSERT INTO ${names.messages} (agent_id, session_id, seq, message, run_id, bytes)
         SELECT 'default', $1, s.first + m.ord - 1, m.message, NULL, m.bytes
         FROM s, ROWS FROM (jsonb_array_elements($4::jsonb), unnest($5::int[])) WITH ORDINALITY AS m(message, bytes, ord)`,
        ["s", old.length, texts.reduce((n, t) => n + Buffer.byteLength(t), 0), `[${texts.join(",")}]`, texts.map((t) => Buffer.byteLength(t))],
      );
    } finally {
      await lease.release();
    }
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      const first = (await store.open("s")).messages;
      expect(json(first)).toEqual(json(old));
      expect(first.some(isUnparsed)).toBe(false);
      await store.appendMany("s", BIG.slice(40, 60));
    } finally {
      await store.close();
    }
    const versions = await queryOnce<{ version: number }>(`SELECT version FROM "${schema}".amplifier_messages_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    const again = new PostgresStore({ url: PG_URL, schema });
    try {
      const mixed = (await again.open("s")).messages;
      expect(mixed.map(isUnparsed)).toEqual([...Array<boolean>(40).fill(false), ...Array<boolean>(20).fill(true)]);
      expect(json(mixed)).toEqual(json(BIG.slice(0, 60)));
    } finally {
      await again.close();
    }
  });

  it("a SQL edit of the message column is what open() returns (the trigger drops the stale body and facts)", async () => {
    const schema = fresh();
    await written(schema, "s", BIG.slice(0, 10));
    await queryOnce(`UPDATE "${schema}".amplifier_messages SET message = jsonb_set(message, '{content}', '"edited"') WHERE session_id = 's' AND seq = 0`);
    const rows = await queryOnce<{ body: string | null; facts: unknown }>(`SELECT body, facts FROM "${schema}".amplifier_messages WHERE session_id = 's' AND seq = 0`);
    expect(rows).toEqual([{ body: null, facts: null }]);
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      const { messages } = await store.open("s");
      expect(messages[0]!.content).toBe("edited");
      expect(json(messages.slice(1))).toEqual(json(BIG.slice(1, 10)));
    } finally {
      await store.close();
    }
  });

  it("a body that no longer matches its facts is STORAGE_UNAVAILABLE when read", async () => {
    const schema = fresh();
    await written(schema, "s", [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]);
    await queryOnce(`UPDATE "${schema}".amplifier_messages SET body = '{"role":"user","content":"swapped"}' WHERE session_id = 's' AND seq = 1`);
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      const { messages } = await store.open("s");
      expect(() => messages[1]!.content).toThrow(expect.objectContaining({ code: "STORAGE_UNAVAILABLE" }));
    } finally {
      await store.close();
    }
  });
});
