import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { startWriter } from "../../../test/stores/support.js";
import { bundlePostgresWriter, dropSchemas, PG_URL, testSchemaName } from "../../../test/stores/postgres-support.js";

/**
 * kill -9 of a writer mid-stream: a child process appends numbered messages to one
 * session, printing "ack <seq>" after each append resolves; it is SIGKILLed after a random delay,
 * again and again. After every kill the session holds exactly 0..m-1 in order (no gap, no
 * duplicate) with m above every acknowledged seq; the next child continues from m.
 *
 * AMPLIFIER_KILL_ITERATIONS sets the number of kills (default 10).
 */
const ITERATIONS = Number(process.env.AMPLIFIER_KILL_ITERATIONS ?? 10);

describe("PostgresStore survives kill -9 of its writer", () => {
  const schema = testSchemaName();
  let script: string;
  beforeAll(async () => {
    script = await bundlePostgresWriter();
  });
  afterAll(() => dropSchemas(schema));

  it("every acknowledged message is there, in order, after each of many kills", async () => {
    const sessionId = "crashy";
    let acknowledged = 0;
    for (let round = 0; round < ITERATIONS; round++) {
      const writer = startWriter(script, ["stream", PG_URL, schema, sessionId, "0"]);
      const ready = await writer.waitFor(/^ready \d+$/);
      const before = Number(ready.split(" ")[1]);
      await writer.waitFor(/^ack \d+$/);
      await sleep(20 + Math.random() * 150);
      writer.child.kill("SIGKILL");
      const { signal } = await writer.exited;
      expect(signal, writer.stderr()).toBe("SIGKILL");

      const acked = writer.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
      acknowledged += acked.length;
      // The server may still be committing the killed client's last append (its backend outlives
      // the process): read until the session is quiescent — the row count and the session's count
      // agree — for at most 10 s. A real mismatch outlasts the wait and fails below.
      const { messages, count } = await settledSession(sessionId, schema);
      const seqs = messages.map((m) => m.metadata?.seq);
      expect(seqs.length).toBeGreaterThanOrEqual(before);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
      expect(count).toBe(seqs.length);
      expect(seqs.length).toBeGreaterThan(Math.max(...acked));
    }
    expect(acknowledged, "the writers got to append between kills").toBeGreaterThan(ITERATIONS);
  }, 120_000);
});

async function settledSession(sessionId: string, schema: string): Promise<{ messages: Message[]; count: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      const { messages } = await store.open(sessionId);
      const count = await store.count(sessionId);
      if (count === messages.length || Date.now() > deadline) return { messages, count };
    } finally {
      await store.close();
    }
    await sleep(100);
  }
}
