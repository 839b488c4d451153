import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonlStore, type FsyncMode } from "../../src/modules/stores.js";
import { bundleWriter, makeTempDir, startWriter } from "./support.js";

/**
 * kill -9 during a stream of appends (issue 4, "Done when"): a child process appends numbered
 * messages from 4 concurrent writers, rewriting the session now and then; it is SIGKILLed after a
 * random delay, again and again on the same session. After every kill the session opens, and
 * holds exactly 0..m-1 in order (no gap, no duplicate, nothing reordered) with m above every
 * number the child acknowledged. The next child takes over the dead one's stale lock.
 *
 * AMPLIFIER_KILL_ITERATIONS sets the number of kills per fsync mode (default 20).
 */
const ITERATIONS = Number(process.env.AMPLIFIER_KILL_ITERATIONS ?? 20);

describe("JsonlStore survives kill -9 of its writer", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let script: string;
  beforeAll(async () => {
    temp = await makeTempDir("kill9");
    script = await bundleWriter(temp.dir);
  });
  afterAll(() => temp.remove());

  it.each(["always", "batch", "never"] satisfies FsyncMode[])(
    "fsync %s: every acknowledged message is there, in order, after each of many kills",
    async (fsync) => {
      const storagePath = join(temp.dir, fsync);
      const sessionId = "crashy";
      let acknowledgedTotal = 0;
      for (let round = 0; round < ITERATIONS; round++) {
        const writer = startWriter(script, ["append", storagePath, sessionId, fsync]);
        const ready = await writer.waitFor(/^ready \d+$/);
        const before = Number(ready.split(" ")[1]);
        await sleep(20 + Math.random() * 120);
        writer.child.kill("SIGKILL");
        const { signal } = await writer.exited;
        expect(signal, writer.stderr()).toBe("SIGKILL");

        const acked = writer.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
        acknowledgedTotal += acked.length;
        const store = new JsonlStore({ storagePath, fsync });
        const { messages, recovered } = await store.open(sessionId);
        await store.close();
        const seqs = messages.map((m) => m.metadata?.seq);
        expect(seqs.length).toBeGreaterThanOrEqual(before);
        expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
        if (acked.length > 0) expect(seqs.length).toBeGreaterThan(Math.max(...acked));
        // A kill lands between syscalls, never inside one write: at most a torn tail is ever found.
        expect(recovered?.problems.filter((p) => p.kind === "corrupt-record") ?? []).toEqual([]);
      }
      expect(acknowledgedTotal, "the writers got to append between kills").toBeGreaterThan(ITERATIONS);
      const text = await readFile(join(storagePath, `${sessionId}.jsonl`), "utf8");
      expect(text.endsWith("\n")).toBe(true);
    },
    120_000,
  );
});
