import { describe, expect, it } from "vitest";
import { createHistoryStore, PostgresStore } from "../../src/modules/stores.js";
import { livePoolCount } from "@amplifier-ts/pg-kit";
import { migrate, SCHEMA_VERSION, tableNames } from "../../modules/store-postgres/postgres-migrations.js";
import { acquirePool } from "@amplifier-ts/pg-kit";
import { defaultUser } from "@amplifier-ts/pg-kit";
import { startWriter } from "./support.js";
import { bundlePostgresWriter, PG_URL, queryOnce, schemasDroppedAfterAll } from "./postgres-support.js";

/** What the PostgreSQL store promises beyond the shared contract. */
const fresh = schemasDroppedAfterAll();

const user = (text: string, metadata: Record<string, unknown> = {}) => ({ role: "user" as const, content: text, metadata: { id: text, ...metadata } });

describe("PostgresStore", () => {
  it("is built by createHistoryStore from { type: 'postgres', url, schema, table }", async () => {
    const schema = fresh();
    const store = createHistoryStore({ type: "postgres", url: PG_URL, schema, table: "history" });
    expect(store.kind).toBe("postgres");
    await store.append("s1", user("a"));
    await store.close();
    const rows = await queryOnce<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema]);
    expect(rows.map((r) => r.table_name)).toEqual(["history", "history_attachments", "history_migrations", "history_sessions"]);
  });

  it("stores message as jsonb keyed by (session_id, seq) with run_id, and keeps the sessions table's count and bytes", async () => {
    const schema = fresh();
    const store = new PostgresStore({ url: PG_URL, schema });
    await store.appendMany("s1", [user("a", { runId: "r1" }), user("b"), user("c", { runId: "r1" })]);
    await store.clearRun("s1", "r1");
    await store.append("s1", user("d"));
    await store.close();
    const rows = await queryOnce<{ seq: string; text: string; run_id: string | null }>(
      `SELECT seq, message->>'content' AS text, run_id FROM "${schema}".amplifier_messages WHERE session_id = 's1' ORDER BY seq`,
    );
    expect(rows).toEqual([{ seq: "0", text: "b", run_id: null }, { seq: "1", text: "d", run_id: null }]);
    const [session] = await queryOnce<{ count: string; bytes: string }>(`SELECT count, bytes FROM "${schema}".amplifier_messages_sessions WHERE session_id = 's1'`);
    const [sum] = await queryOnce<{ bytes: string }>(`SELECT sum(bytes) AS bytes FROM "${schema}".amplifier_messages WHERE session_id = 's1'`);
    expect(session).toEqual({ count: "2", bytes: sum!.bytes });
  });

  it("migrations run once even when many stores open the same schema at the same moment", async () => {
    const schema = fresh();
    const stores = Array.from({ length: 6 }, () => new PostgresStore({ url: PG_URL, schema }));
    await Promise.all(stores.map((s, i) => s.append(`s${i}`, user(`m${i}`))));
    await Promise.all(stores.map((s) => s.close()));
    const rows = await queryOnce<{ version: number }>(`SELECT version FROM "${schema}".amplifier_messages_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    const lease = await acquirePool(PG_URL);
    try {
      expect(await migrate(lease.pool, tableNames(schema, "amplifier_messages"))).toEqual([]);
    } finally {
      await lease.release();
    }
  });

  it("lists and deletes sessions from the sessions table (count, bytes, updatedAt), sorted by id", async () => {
    const store = new PostgresStore({ url: PG_URL, schema: fresh() });
    await store.append("b", user("1"));
    await store.appendMany("a", [user("2"), user("3")]);
    await store.append("B", user("4"));
    await store.clear("B");
    const listed = await store.listSessions();
    expect(listed.map((s) => [s.sessionId, s.count])).toEqual([["a", 2], ["b", 1]]);
    expect(listed[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(user("2"))) + Buffer.byteLength(JSON.stringify(user("3"))));
    expect(Number.isNaN(Date.parse(listed[0]!.updatedAt!))).toBe(false);
    await store.deleteSession("a");
    expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(["b"]);
    expect(await store.read("a")).toEqual([]);
    await store.close();
  });

  it("reads a session larger than one page in stored order, and any window of it", async () => {
    const store = new PostgresStore({ url: PG_URL, schema: fresh() });
    const n = 12_345; // more than two pages of 5 000 rows
    await store.appendMany("big", Array.from({ length: n }, (_, i) => user(`m${i}`, { seq: i })));
    const all = await store.read("big");
    expect(all.map((m) => m.metadata?.seq)).toEqual(Array.from({ length: n }, (_, i) => i));
    const window = await store.read("big", { offset: 4_990, limit: 5_020 });
    expect(window.map((m) => m.metadata?.seq)).toEqual(Array.from({ length: 5_020 }, (_, i) => 4_990 + i));
    await store.close();
  });

  it.each([
    ["NUL", "a\u0000b"],
    ["a lone surrogate", "a\ud800b"],
  ])("refuses %s with INVALID_MESSAGE and stores nothing of the batch", async (_label, text) => {
    const store = new PostgresStore({ url: PG_URL, schema: fresh() });
    await expect(store.appendMany("s1", [user("ok"), user(text)])).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { path: "messages[1]" } });
    expect(await store.count("s1")).toBe(0);
    // An escaped backslash before "u0000" is ordinary text, and a well-formed pair is kept.
    await store.append("s1", user("literal \\u0000 and 😀"));
    expect((await store.read("s1"))[0]!.content).toBe("literal \\u0000 and 😀");
    await store.close();
  });

  it("rejects a bad schema, table, retry, url or pool size with INVALID_ARGUMENT before touching the server", () => {
    expect(() => new PostgresStore({ schema: 'x"; drop' })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "store.schema" }));
    expect(() => new PostgresStore({ table: "1abc" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "store.table" }));
    expect(() => new PostgresStore({ retry: { attempts: 0 } })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "store.retry" }));
    expect(() => new PostgresStore({ url: "mysql://x" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "store.url" }));
    expect(() => new PostgresStore({ poolSize: 0 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "store.poolSize" }));
  });

  it("takes its url from AMPLIFIER_PG_URL when none is given", async () => {
    const saved = process.env.AMPLIFIER_PG_URL;
    process.env.AMPLIFIER_PG_URL = "postgres://127.0.0.1:1/test";
    try {
      const store = new PostgresStore({ schema: fresh(), retry: { attempts: 1 } });
      // The url has no user: the one it connects as (PGUSER or the OS user, as psql) is shown.
      await expect(store.open("s1")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE", details: { url: `postgres://${encodeURIComponent(defaultUser())}@127.0.0.1:1/test` } });
      await store.close();
    } finally {
      if (saved === undefined) delete process.env.AMPLIFIER_PG_URL;
      else process.env.AMPLIFIER_PG_URL = saved;
    }
  });

  it("cannot connect → STORAGE_UNAVAILABLE at open after the configured tries, naming the server without its password", async () => {
    const store = new PostgresStore({ url: "postgres://me:secret@127.0.0.1:1/test", schema: fresh(), retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
    const error = (await store.open("s1").then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: string; message: string; details: { cause: { code?: string } } };
    expect(error).toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    expect(error.message).toContain("127.0.0.1:1");
    expect(error.message).not.toContain("secret");
    expect(error.details.cause.code).toBe("ECONNREFUSED");
    await expect(store.append("s1", user("x"))).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
    await store.close();
  });

  it("shares one pool per url between stores and ends it when the last store closes", async () => {
    const before = livePoolCount();
    const a = new PostgresStore({ url: PG_URL, schema: fresh() });
    const b = new PostgresStore({ url: PG_URL, schema: fresh() });
    await a.append("s", user("1"));
    await b.append("s", user("2"));
    expect(livePoolCount()).toBe(before + 1);
    await a.close();
    expect(livePoolCount()).toBe(before + 1);
    expect(await b.count("s")).toBe(1);
    await b.close();
    expect(livePoolCount()).toBe(before);
  });

  it("leaves no open handle after close(): a child process that appends and closes ends by itself", async () => {
    const script = await bundlePostgresWriter();
    const child = startWriter(script, ["exit", PG_URL, fresh(), "s1", "0", "5"]);
    const timer = setTimeout(() => child.child.kill("SIGKILL"), 8_000); // under the pool's 10 s idle timeout
    const { code, signal } = await child.exited;
    clearTimeout(timer);
    expect(signal, "the process had to be killed: something kept it alive").toBeNull();
    expect(code, child.stderr()).toBe(0);
    expect(child.lines).toEqual(["closed"]);
  });

  it("migration 4: a schema of version 3 with sessions gains the attachments table; the sessions stay, attachments are rows keyed (agent_id, session_id, name), deleted with their session", async () => {
    const schema = fresh();
    const names = tableNames(schema, "amplifier_messages");
    const lease = await acquirePool(PG_URL);
    try {
      expect(await migrate(lease.pool, names, 3)).toEqual([1, 2, 3]);
    } finally {
      await lease.release();
    }
    const v3 = new PostgresStore({ url: PG_URL, schema });
    // Not through migrate(): the store's own first use brings the schema to the current version.
    await v3.append("s1", user("before"));
    await v3.writeAttachment("s1", "counts", "{}\n", { agentId: "alpha" });
    await v3.writeAttachment("s1", "counts", "default's");
    expect((await v3.read("s1")).map((m) => m.content)).toEqual(["before"]);
    const rows = await queryOnce<{ agent_id: string; session_id: string; name: string; body: string }>(`SELECT agent_id, session_id, name, body FROM "${schema}".amplifier_messages_attachments ORDER BY agent_id`);
    expect(rows).toEqual([
      { agent_id: "alpha", session_id: "s1", name: "counts", body: "{}\n" },
      { agent_id: "default", session_id: "s1", name: "counts", body: "default's" },
    ]);
    await v3.deleteSession("s1");
    await v3.close();
    const left = await queryOnce<{ agent_id: string }>(`SELECT agent_id FROM "${schema}".amplifier_messages_attachments`);
    expect(left.map((r) => r.agent_id)).toEqual(["alpha"]);
    const versions = await queryOnce<{ version: number }>(`SELECT version FROM "${schema}".amplifier_messages_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1)); // and every later migration
  });
});
