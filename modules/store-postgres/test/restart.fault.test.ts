import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { appendStream } from "../../../test/stores/append-stream.js";
import { PG_URL } from "../../../test/stores/postgres-support.js";
import { findPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from "../../../test/stores/private-postgres.js";

/**
 * Server restart in the middle of a stream. A fault test (runs alone,
 * vitest.faults.config.ts). The server is a private PostgreSQL made for this test (initdb in a temp
 * folder, its own port: private-postgres.ts) — the machine's own server is never stopped or
 * restarted. One writer appends numbered messages without pause; after some have been
 * acknowledged the test restarts the server with pg_ctl and keeps writing. The store retries
 * through the outage: no append rejects, every acknowledged message is stored exactly once and in
 * order, and the store works after. Skipped, with the reason, where no server binaries are found.
 */
const support = await findPrivatePostgres();
const skipped = support.ok ? undefined : support.reason;
if (skipped !== undefined) console.warn(`store-postgres restart.fault.test.ts skipped: ${skipped}`);

async function queryAt<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(skipped !== undefined)(`PostgresStore across a server restart${skipped ? ` (skipped: ${skipped})` : ""}`, () => {
  let server: PrivatePostgres;
  /** When the machine's own server (if one answers at PG_URL) started: it must not change. */
  const machineStarted = () => queryAt<{ t: Date }>(PG_URL, "SELECT pg_postmaster_start_time() AS t").then((rows) => rows[0]!.t.getTime(), () => undefined);
  let machineStartedBefore: number | undefined;
  beforeAll(async () => {
    machineStartedBefore = await machineStarted();
    if (support.ok) server = await startPrivatePostgres(support);
  });
  afterAll(async () => {
    await server?.remove();
    expect(await machineStarted(), "the machine's own PostgreSQL was not restarted").toBe(machineStartedBefore);
  });

  it("retries through the restart: every acknowledged message is there once, in order, and the store works after", async () => {
    const store = new PostgresStore({ url: server.url, schema: "fault", retry: { attempts: 80, baseDelayMs: 50, maxDelayMs: 500 } });
    await store.open("stream");
    const stream = appendStream(store, "stream");
    const { acked, failures } = stream;

    const started = async () => (await queryAt<{ t: Date }>(server.url, "SELECT pg_postmaster_start_time() AS t"))[0]!.t.getTime();
    const startedBefore = await started();
    await stream.until(50);
    const beforeRestart = acked.length;
    await server.restart();
    expect(await started(), "the server restarted").toBeGreaterThan(startedBefore);
    const afterRestart = acked.length;
    await stream.until(afterRestart + 50);
    await stream.stop();

    expect(failures).toEqual([]);
    expect(acked.length).toBeGreaterThan(beforeRestart + 50);
    const reader = new PostgresStore({ url: server.url, schema: "fault" });
    const seqs = (await reader.read("stream")).map((m) => m.metadata?.seq);
    expect(seqs).toEqual(Array.from({ length: acked.length }, (_, i) => i));
    expect(await reader.count("stream")).toBe(acked.length);
    await reader.close();

    await store.append("stream", { role: "user", content: "after", metadata: { id: "after" } });
    expect((await store.read("stream", { offset: acked.length })).map((m) => m.content)).toEqual(["after"]);
    await store.close();
  });
});
