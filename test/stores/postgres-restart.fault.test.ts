import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/modules/stores.js";
import { appendStream } from "./append-stream.js";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "./postgres-support.js";

/**
 * Server restart in the middle of a stream (issue 6). A fault test: it restarts the machine's
 * PostgreSQL, so it runs alone (vitest.faults.config.ts). One writer appends numbered messages
 * without pause; after some have been acknowledged the test restarts the server with
 * pg_ctlcluster and keeps writing. The store retries through the outage: no append rejects,
 * every acknowledged message is stored exactly once and in order, and the store works after.
 */
const run = promisify(execFile);
const VERSION = readdirSync("/etc/postgresql")[0]!;

async function pgctl(action: "restart" | "start"): Promise<void> {
  await run("pg_ctlcluster", ["--skip-systemctl-redirect", VERSION, "main", action], { timeout: 60_000 });
}

async function serverIsUp(): Promise<boolean> {
  return run("pg_isready", ["-h", "127.0.0.1", "-p", "5432"]).then(() => true, () => false);
}

describe("PostgresStore across a server restart", () => {
  const schema = testSchemaName();
  afterAll(async () => {
    if (!(await serverIsUp())) await pgctl("start");
    await dropSchemas(schema);
  });

  it("retries through the restart: every acknowledged message is there once, in order, and the store works after", async () => {
    const store = new PostgresStore({ url: PG_URL, schema, retry: { attempts: 80, baseDelayMs: 50, maxDelayMs: 500 } });
    await store.open("stream");
    const stream = appendStream(store, "stream");
    const { acked, failures } = stream;

    const started = async () => (await queryOnce<{ t: Date }>("SELECT pg_postmaster_start_time() AS t"))[0]!.t.getTime();
    const startedBefore = await started();
    await stream.until(50);
    const beforeRestart = acked.length;
    await pgctl("restart");
    expect(await started(), "the server restarted").toBeGreaterThan(startedBefore);
    const afterRestart = acked.length;
    await stream.until(afterRestart + 50);
    await stream.stop();

    expect(failures).toEqual([]);
    expect(acked.length).toBeGreaterThan(beforeRestart + 50);
    const reader = new PostgresStore({ url: PG_URL, schema });
    const seqs = (await reader.read("stream")).map((m) => m.metadata?.seq);
    expect(seqs).toEqual(Array.from({ length: acked.length }, (_, i) => i));
    expect(await reader.count("stream")).toBe(acked.length);
    await reader.close();

    await store.append("stream", { role: "user", content: "after", metadata: { id: "after" } });
    expect((await store.read("stream", { offset: acked.length })).map((m) => m.content)).toEqual(["after"]);
    await store.close();
  });
});
