import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAmplifierError, createError } from "@amplifier-ts/contracts";
import { closePool, createPool, uncertainWrite, withTransaction } from "@amplifier-ts/pg-kit";
import { lossyProxy } from "../../../test/stores/lossy-proxy.js";
import { PG_URL, queryOnce, testSchemaName } from "../../../test/stores/postgres-support.js";

/** Against the real server: a table of its own, with a unique key checked at COMMIT (deferred). */
const table = `public.${testSchemaName()}`;
const pool = await createPool(PG_URL, { max: 2 });
const rows = async () => (await queryOnce<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);

beforeAll(() => queryOnce(`CREATE TABLE ${table} (id text, CONSTRAINT unique_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)`));
afterAll(async () => {
  await queryOnce(`DROP TABLE IF EXISTS ${table}`);
  await closePool(pool);
});

describe("withTransaction", () => {
  it("commits what the body did and returns its result", async () => {
    const result = await withTransaction(pool, async (client) => {
      await client.query(`INSERT INTO ${table} (id) VALUES ('a'), ('b')`);
      return "done";
    });
    expect(result).toBe("done");
    expect(await rows()).toEqual(["a", "b"]);
  });

  it("rolls back everything when the body throws, and the body's own error goes on", async () => {
    const failure = new Error("the body failed after writing");
    await expect(
      withTransaction(pool, async (client) => {
        await client.query(`INSERT INTO ${table} (id) VALUES ('c')`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await rows()).toEqual(["a", "b"]);
    expect(pool.idleCount, "the client went back to the pool, out of its transaction").toBeGreaterThan(0);
    expect((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n).toBe("2");
  });

  it("opens with the statement given (here READ ONLY: a write fails with 25006 and nothing is stored)", async () => {
    await expect(withTransaction(pool, (client) => client.query(`INSERT INTO ${table} (id) VALUES ('d')`), { begin: "BEGIN READ ONLY" })).rejects.toMatchObject({ code: "25006" });
    expect(await rows()).toEqual(["a", "b"]);
  });

  it("a COMMIT the server answers with an error (a deferred key, 23505) is a failure, not a lost answer", async () => {
    let lost = 0;
    await expect(
      withTransaction(pool, (client) => client.query(`INSERT INTO ${table} (id) VALUES ('e'), ('a')`), { onCommitLost: () => lost++ }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(lost).toBe(0);
    expect(await rows()).toEqual(["a", "b"]);
  });

  it("a COMMIT sent whose answer never comes (the connection died) is reported: it may have committed, and here it did", async () => {
    const url = new URL(PG_URL);
    const proxy = await lossyProxy({ host: url.hostname, port: Number(url.port || 5432) }, "COMMIT", "postgres");
    const through = await createPool(`${proxy.url}${url.pathname}`.replace("postgres://", `postgres://${url.username}@`), { max: 1 });
    try {
      proxy.swallow = true;
      let lost = 0;
      const error = await withTransaction(through, (client) => client.query(`INSERT INTO ${table} (id) VALUES ('f')`), { onCommitLost: () => lost++ }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(lost).toBe(1);
      expect(proxy.swallowed).toBe(1);
      expect(await rows()).toEqual(["a", "b", "f"]);
      expect(through.totalCount, "the broken client is destroyed, not reused").toBe(0);
    } finally {
      await closePool(through);
      await proxy.close();
    }
  });
});

describe("uncertainWrite", () => {
  it("turns a final STORAGE_WRITE_FAILED into STORAGE_WRITE_UNCERTAIN naming the server (password masked) and the messages", () => {
    const failed = createError("STORAGE_WRITE_FAILED", "Cannot append to session s in PostgreSQL: Connection terminated", { module: "m" });
    const error = uncertainWrite(failed, { module: "stores/postgres", url: "postgres://u:secret@db:5432/x", messageIds: ["m1"] });
    expect(isAmplifierError(error, "STORAGE_WRITE_UNCERTAIN")).toBe(true);
    expect(error).toMatchObject({
      message: expect.stringContaining(`${failed.message}; a try was sent and its answer lost, so it may have committed`),
      details: { module: "stores/postgres", url: "postgres://u:***@db:5432/x", messageIds: ["m1"], cause: failed },
    });
    expect(JSON.stringify((error as { details: unknown }).details)).not.toContain("secret");
  });

  it("leaves any other error as it is", () => {
    const unavailable = createError("STORAGE_UNAVAILABLE", "down", { module: "m" });
    const raw = new Error("raw");
    expect(uncertainWrite(unavailable, { module: "m", url: "postgres://h/db" })).toBe(unavailable);
    expect(uncertainWrite(raw, { module: "m", url: "postgres://h/db" })).toBe(raw);
  });
});
