import { afterAll, describe, expect, it } from "vitest";
import { backoffDelay, closePool, createPool, DEFAULT_RETRY, isTransient, withRetry } from "@amplifier-ts/pg-kit";
import { PG_URL } from "../../../test/stores/postgres-support.js";

const pool = await createPool(PG_URL, { max: 2 });
afterAll(() => closePool(pool));

/** A statement that fails on the real server with SQLSTATE `code` (what a deadlock or a conflict answers). */
const raise = (code: string) => pool.query(`DO $$ BEGIN RAISE EXCEPTION 'raised for the test' USING ERRCODE = '${code}'; END $$`);
const quick = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2 };

describe("the retry policy", () => {
  it("classifies failures: connection and shutdown errors are transient, data errors are not", () => {
    expect(isTransient(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("connection failure"), { code: "08006" }))).toBe(true);
    expect(isTransient(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isTransient(Object.assign(new Error("could not serialize access"), { code: "40001" }))).toBe(true);
    expect(isTransient(Object.assign(new Error("invalid input syntax for type json"), { code: "22P02" }))).toBe(false);
    expect(isTransient(Object.assign(new Error("relation does not exist"), { code: "42P01" }))).toBe(false);
    expect(isTransient(null)).toBe(false);
  });

  it("backs off exponentially within [ceiling/2, ceiling], the ceiling capped at maxDelayMs", () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 10, maxDelayMs: 100 };
    for (let attempt = 1; attempt <= 10; attempt++) {
      const ceiling = Math.min(100, 10 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(policy, attempt);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it("runs again after a transient SQLSTATE from the server (40001, serialization failure) and returns the try that succeeded", async () => {
    const tries: number[] = [];
    const answer = await withRetry(quick, async (attempt) => {
      tries.push(attempt);
      if (attempt < 3) await raise("40001");
      return (await pool.query<{ n: number }>("SELECT $1::int AS n", [attempt])).rows[0]!.n;
    });
    expect(tries).toEqual([1, 2, 3]);
    expect(answer).toBe(3);
  });

  it("does not run again what retrying cannot fix: a data error (22P02) is thrown from the first try", async () => {
    let tries = 0;
    await expect(withRetry(quick, async () => { tries++; await raise("22P02"); })).rejects.toMatchObject({ code: "22P02" });
    expect(tries).toBe(1);
  });

  it("gives up after `attempts` tries with the last failure", async () => {
    let tries = 0;
    await expect(withRetry(quick, async () => { tries++; await raise("40P01"); })).rejects.toMatchObject({ code: "40P01" });
    expect(tries).toBe(quick.attempts);
  });

  it("with a deadline, gives up when the next try would start after it", async () => {
    let tries = 0;
    // Each wait is 20-40 ms: 100 tries would take seconds; 300 ms hold at most 300 / 20 + 1 tries.
    const slow = { attempts: 100, baseDelayMs: 40, maxDelayMs: 40 };
    await expect(withRetry(slow, async () => { tries++; await raise("40001"); }, Date.now() + 300)).rejects.toMatchObject({ code: "40001" });
    expect(tries).toBeGreaterThanOrEqual(1);
    expect(tries).toBeLessThanOrEqual(16);
  });
});
