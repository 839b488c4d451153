/**
 * Every store checks messages against the Message contract on the way in (refused, nothing
 * stored) and on the way out (a record someone else wrote is never handed out as a message):
 * JSONL skips it as a corrupt record and reports its line and id; PostgreSQL, Redis and memory
 * reject with INVALID_MESSAGE naming the session, the index and the id.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createClient } from "redis";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HistoryStore } from "../../contracts/history-store.js";
import type { Message } from "../../contracts/generated/message.js";
import { JsonlStore, MemoryStore, PostgresStore, RedisStore } from "../../src/modules/stores.js";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";
import { makeTempDir } from "./support.js";

const msg = (i: number): Message => ({ role: "user", content: `m${i}`, metadata: { id: `m${i}` } });
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string; message: string; details?: Record<string, unknown> });

/** Records that parse as JSON and carry a role, yet are no Message; `field` is what the error names. */
const INVALID: { record: Record<string, unknown>; field: string }[] = [
  { record: { role: "assistant", content: 42, metadata: { id: "bad-content" } }, field: "content" },
  { record: { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" }], metadata: { id: "bad-call" } }, field: "tool_calls[0].function" },
  { record: { role: "constructor", content: "x", metadata: { id: "bad-constructor" } }, field: "role" },
  { record: { role: "__proto__", content: "x", metadata: { id: "bad-proto" } }, field: "role" },
  { record: { role: "toString", content: "x", metadata: { id: "bad-tostring" } }, field: "role" },
];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
const schemas: string[] = [];
const prefixes: string[] = [];
const stores: HistoryStore[] = [];
beforeEach(async () => {
  temp = await makeTempDir("stored-validation");
});
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((s) => s.close()));
  await temp.remove();
});
afterAll(async () => {
  await dropSchemas(...schemas);
  await dropPrefixes(...prefixes);
});

const FACTORIES: Record<string, () => HistoryStore> = {
  memory: () => new MemoryStore(),
  jsonl: () => new JsonlStore({ storagePath: temp.dir }),
  postgres: () => {
    const schema = testSchemaName();
    schemas.push(schema);
    return new PostgresStore({ url: PG_URL, schema });
  },
  redis: () => {
    const keyPrefix = testKeyPrefix();
    prefixes.push(keyPrefix);
    return new RedisStore({ url: REDIS_URL, keyPrefix });
  },
};
const make = (kind: string) => {
  const store = FACTORIES[kind]!();
  stores.push(store);
  return store;
};

describe.each(Object.keys(FACTORIES))("%s store: messages going in", (kind) => {
  it("append, appendMany and replace refuse a record that is no Message (INVALID_MESSAGE naming the field); nothing is stored", async () => {
    const store = make(kind);
    await store.appendMany("s", [msg(0), msg(1)]);
    for (const { record, field } of INVALID) {
      const bad = record as unknown as Message;
      const single = await failure(store.append("s", bad));
      expect(single?.code, JSON.stringify(record)).toBe("INVALID_MESSAGE");
      expect(single?.details?.path).toBe(`message.${field}`);
      const batch = await failure(store.appendMany("s", [msg(2), bad]));
      expect(batch?.code).toBe("INVALID_MESSAGE");
      expect(batch?.details?.path).toBe(`messages[1].${field}`);
      expect(batch?.message).toContain(`id "${(record.metadata as { id: string }).id}"`);
      expect((await failure(store.replace("s", [bad])))?.code).toBe("INVALID_MESSAGE");
    }
    expect((await store.read("s")).map((m) => m.metadata?.id)).toEqual(["m0", "m1"]);
  });
});

describe("messages coming out of a store someone else wrote to", () => {
  it("jsonl: an invalid record is a corrupt record: skipped, reported with its line and id, never handed out", async () => {
    const lines = [msg(0), INVALID[0]!.record, msg(1), INVALID[2]!.record, msg(2)].map((m) => JSON.stringify(m));
    await writeFile(join(temp.dir, "s.jsonl"), `${lines.join("\n")}\n`);
    const opened = await make("jsonl").open("s");
    expect(opened.messages.map((m) => m.metadata?.id)).toEqual(["m0", "m1", "m2"]);
    expect(opened.recovered?.problems.map((p) => [p.kind, p.line])).toEqual([["corrupt-record", 2], ["corrupt-record", 4]]);
    expect(opened.recovered?.problems[0]!.reason).toContain('id "bad-content"');
    expect(opened.recovered?.problems[0]!.reason).toContain("content: expected");
    expect(opened.recovered?.problems[1]!.reason).toContain('id "bad-constructor"');
    expect(opened.recovered?.problems[1]!.reason).toContain("role: expected");
    expect(await readdir(temp.dir)).toContain("s.lock");
    expect(await readFile(join(temp.dir, "s.jsonl"), "utf8")).toContain("bad-content"); // left in place until a rewrite
  });

  it("postgres: a row that is no Message rejects open and read with INVALID_MESSAGE naming session, index and id", async () => {
    const store = make("postgres") as PostgresStore;
    await store.appendMany("s", [msg(0), msg(1)]);
    const schema = schemas.at(-1)!;
    await queryOnce(`UPDATE "${schema}"."amplifier_messages" SET message = $1::jsonb WHERE session_id = 's' AND seq = 1`, [JSON.stringify(INVALID[2]!.record)]);
    for (const error of [await failure(store.open("s")), await failure(store.read("s", { offset: 1 }))]) {
      expect(error?.code).toBe("INVALID_MESSAGE");
      expect(error?.details).toMatchObject({ index: 1, sessionId: "s", messageId: "bad-constructor", path: "s[1].role" });
      expect(error?.message).toContain('Stored message 1 of session "s" (id "bad-constructor")');
    }
    expect((await store.read("s", { limit: 1 })).map((m) => m.metadata?.id)).toEqual(["m0"]);
  });

  it("redis: a list entry that is no Message (or not JSON) rejects read with INVALID_MESSAGE naming session, index and id", async () => {
    const store = make("redis") as RedisStore;
    await store.appendMany("s", [msg(0), msg(1), msg(2)]);
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      await client.lSet(`${store.keyPrefix}s:s`, 1, JSON.stringify(INVALID[3]!.record));
      const error = await failure(store.open("s"));
      expect(error?.code).toBe("INVALID_MESSAGE");
      expect(error?.details).toMatchObject({ index: 1, sessionId: "s", messageId: "bad-proto", path: "s[1].role" });
      await client.lSet(`${store.keyPrefix}s:s`, 1, "{not json");
      expect(await failure(store.read("s"))).toMatchObject({ code: "INVALID_MESSAGE", details: { index: 1 } });
    } finally {
      await client.close();
    }
  });
});
