/**
 * PostgreSQL: appends idempotent by message id (migration 5) and unknown outcomes. A proxy in
 * front of the machine's PostgreSQL swallows the answer to the append's INSERT and then refuses
 * every connection — the statement committed, the store cannot learn it.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../contracts/generated/message.js";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { acquirePool } from "@amplifier-ts/pg-kit";
import { migrate, tableNames } from "../postgres-migrations.js";
import { lossyProxy, type LossyProxy } from "../../../test/stores/lossy-proxy.js";
import { PG_URL, queryOnce, schemasDroppedAfterAll } from "../../../test/stores/postgres-support.js";

const fresh = schemasDroppedAfterAll();

const user = (text: string): Message => ({ role: "user", content: text, metadata: { id: text } });

/** PG_URL with its host and port replaced by the proxy's. */
function through(proxyUrl: string): string {
  const target = new URL(PG_URL);
  const proxy = new URL(proxyUrl);
  target.host = proxy.host;
  return target.toString();
}

/** A proxy in front of PG_URL's server that can swallow the answer to a request holding `statement`. */
const pgProxy = (statement: string) => {
  const url = new URL(PG_URL);
  return lossyProxy({ host: url.hostname, port: Number(url.port || 5432) }, statement, "postgres");
};

/**
 * On a fresh schema: a store whose connections go through a proxy that can swallow the answer to
 * `statement` (three quick tries), and one straight to the server; all closed after `body`.
 */
async function throughProxy(statement: string, body: (setup: { proxy: LossyProxy; store: PostgresStore; direct: PostgresStore }) => Promise<void>): Promise<void> {
  const schema = fresh();
  const proxy = await pgProxy(statement);
  const store = new PostgresStore({ url: through(proxy.url), schema, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 } });
  const direct = new PostgresStore({ url: PG_URL, schema });
  try {
    await body({ proxy, store, direct });
  } finally {
    await Promise.allSettled([store.close(), direct.close()]);
    await proxy.close();
  }
}

/** From now on, the next answer to the proxy's statement is lost, and the server then "goes away". */
function loseNextAnswer(proxy: LossyProxy): void {
  proxy.swallow = true;
  proxy.refuseAfterSwallow = true;
}

describe("PostgresStore: idempotent appends and unknown outcomes", () => {
  it("migration 5 keeps existing rows that repeat an id (the first holds the id) and never fails on them; appends of those ids are no-ops", async () => {
    const schema = fresh();
    const names = tableNames(schema, "amplifier_messages");
    const lease = await acquirePool(PG_URL);
    try {
      expect(await migrate(lease.pool, names, 4)).toEqual([1, 2, 3, 4]);
      // A history of version 4 that holds "a" twice (written by another program, or two retries of old).
      await lease.pool.query(
        `INSERT INTO ${names.sessions} (agent_id, session_id, count, bytes) VALUES ('default', 's', 3, 0);
         INSERT INTO ${names.messages} (agent_id, session_id, seq, message, bytes) VALUES
           ('default', 's', 0, '{"role":"user","content":"a","metadata":{"id":"a"}}', 1),
           ('default', 's', 1, '{"role":"user","content":"b","metadata":{"id":"b"}}', 1),
           ('default', 's', 2, '{"role":"user","content":"a again","metadata":{"id":"a"}}', 1)`,
      );
      expect(await migrate(lease.pool, names)).toEqual([5]);
    } finally {
      await lease.release();
    }
    const ids = await queryOnce<{ seq: string; message_id: string | null }>(`SELECT seq, message_id FROM ${names.messages} ORDER BY seq`);
    expect(ids.map((r) => [Number(r.seq), r.message_id])).toEqual([[0, "a"], [1, "b"], [2, null]]);
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      await store.appendMany("s", [user("a"), user("b"), user("c")]);
      expect((await store.read("s")).map((m) => m.content)).toEqual(["a", "b", "a again", "c"]);
      expect(await store.count("s")).toBe(4);
    } finally {
      await store.close();
    }
  });

  it("an INSERT that committed but whose answer was lost is STORAGE_WRITE_UNCERTAIN (it was FAILED); a retry stores nothing twice", async () => {
    await throughProxy("INSERT INTO", async ({ proxy, store, direct }) => {
      await store.append("s", user("m1"));
      loseNextAnswer(proxy);
      const error = await store.append("s", user("m2")).then(() => undefined, (e: unknown) => e as { code?: string; details?: { messageIds?: string[] } });
      expect(proxy.swallowed).toBe(1);
      expect(error?.code).toBe("STORAGE_WRITE_UNCERTAIN");
      expect(error?.details?.messageIds).toEqual(["m2"]);
      expect((await direct.read("s")).map((m) => m.content)).toEqual(["m1", "m2"]); // it did commit
      await direct.append("s", user("m2")); // the caller's retry (another connection, a new call): a no-op
      await direct.append("s", user("m3"));
      expect((await direct.read("s")).map((m) => m.content)).toEqual(["m1", "m2", "m3"]);
      expect(await direct.count("s")).toBe(3);
    });
  });

  it("a replace whose COMMIT was sent and whose answer was lost is STORAGE_WRITE_UNCERTAIN (it committed)", async () => {
    await throughProxy("COMMIT", async ({ proxy, store, direct }) => {
      await store.appendMany("s", [user("a"), user("b")]);
      loseNextAnswer(proxy);
      await expect(store.replace("s", [user("c")])).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
      expect(proxy.swallowed).toBe(1);
      expect((await direct.read("s")).map((m) => m.content)).toEqual(["c"]);
    });
  });

  it("a deleteSession whose answer was lost is STORAGE_WRITE_UNCERTAIN (the session is gone)", async () => {
    await throughProxy("DELETE FROM", async ({ proxy, store, direct }) => {
      await store.appendMany("s", [user("a"), user("b")]);
      loseNextAnswer(proxy);
      await expect(store.deleteSession("s")).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
      expect(await direct.count("s")).toBe(0);
    });
  });

  it("an append no try of which reached the server is STORAGE_WRITE_FAILED, and nothing is stored", async () => {
    await throughProxy("INSERT INTO", async ({ proxy, store, direct }) => {
      await store.append("s", user("m1"));
      await proxy.close(); // cuts the pool's connections; new ones are refused
      // Once the store knows (a read failed), no write is sent. (One sent before it noticed may
      // have reached a server: that is UNCERTAIN, the test above.)
      await expect(store.count("s")).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
      await expect(store.append("s", user("m2"))).rejects.toMatchObject({ code: "STORAGE_WRITE_FAILED" });
      expect((await direct.read("s")).map((m) => m.content)).toEqual(["m1"]);
    });
  });

  it("racing writers in two stores (two pools) with the same ids store each once, counts dense", async () => {
    const schema = fresh();
    const a = new PostgresStore({ url: PG_URL, schema, poolSize: 4 });
    const b = new PostgresStore({ url: `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}application_name=second`, schema, poolSize: 4 });
    try {
      await a.append("s", user("first"));
      const batch = Array.from({ length: 30 }, (_, i) => user(`r${i}`));
      await Promise.all([...batch.map((m) => a.append("s", m)), ...batch.map((m) => b.append("s", m)), b.appendMany("s", batch)]);
      const stored = await a.read("s");
      expect(new Set(stored.map((m) => m.content)).size).toBe(31);
      expect(stored).toHaveLength(31);
      const seqs = await queryOnce<{ seq: string }>(`SELECT seq FROM "${schema}".amplifier_messages ORDER BY seq`);
      expect(seqs.map((r) => Number(r.seq))).toEqual(Array.from({ length: 31 }, (_, i) => i));
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
    }
  });
});
