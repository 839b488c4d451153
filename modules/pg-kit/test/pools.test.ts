import { describe, expect, it } from "vitest";
import { acquirePool, closePool, createPool, isTransient, livePoolCount, onCheckedOutClient } from "@amplifier-ts/pg-kit";
import { PG_URL, queryOnce } from "../../../test/stores/postgres-support.js";

describe("pools", () => {
  it("a pool of its own: idle connections that die do not crash the process, and closing twice never throws", async () => {
    const pool = await createPool(PG_URL, { max: 1 });
    expect(() => pool.emit("error", new Error("idle connection died"))).not.toThrow();
    expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    await closePool(pool);
    await closePool(pool);
    await closePool(undefined);
  });

  it("shared pools: one per url, counted; the last release ends it and releasing twice counts once", async () => {
    const before = livePoolCount();
    const a = await acquirePool(PG_URL, 2);
    const b = await acquirePool(PG_URL, 2);
    expect(b.pool).toBe(a.pool);
    expect(livePoolCount()).toBe(before + 1);
    await a.release();
    await a.release();
    expect(livePoolCount()).toBe(before + 1);
    expect((await b.pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    await b.release();
    expect(livePoolCount()).toBe(before);
    expect(b.pool.ended).toBe(true);
  });
});

describe("onCheckedOutClient", () => {
  it("survives a cut while the client is held and idle; the client it broke is destroyed, not reused", async () => {
    const pool = await createPool(PG_URL, { max: 1 });
    try {
      const failed: unknown[] = [];
      const error = await onCheckedOutClient(
        pool,
        async (client) => {
          const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
          await queryOnce("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
          // The cut arrives while no query runs: without a listener its 'error' event would be uncaught.
          await new Promise((resolve) => setTimeout(resolve, 200));
          await client.query("SELECT 1");
        },
        (e) => void failed.push(e),
      ).catch((e: unknown) => e);
      expect(isTransient(error)).toBe(true);
      expect(failed).toEqual([error]);
      expect(pool.totalCount).toBe(0);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    } finally {
      await closePool(pool);
    }
  });

  it("a client that failed for a reason of the statement's own (a syntax error) goes back to the pool", async () => {
    const pool = await createPool(PG_URL, { max: 1 });
    try {
      await expect(onCheckedOutClient(pool, (client) => client.query("SELEC 1"))).rejects.toMatchObject({ code: "42601" });
      expect(pool.totalCount).toBe(1);
      expect(pool.idleCount).toBe(1);
    } finally {
      await closePool(pool);
    }
  });
});
