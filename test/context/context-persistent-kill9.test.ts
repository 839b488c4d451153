import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import { mount } from "../../modules/context-persistent/index.js";
import { checkWindowInvariants } from "../../testing/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { startWriter, tempDirAndBundledChild } from "../stores/support.js";

/**
 * kill -9 during a stream of addMessage calls (issue 4, "Done when"), at the level users see: a
 * child process mounts context-persistent and adds messages (tool calls and results included); it
 * is SIGKILLed after a random delay, many times over the same session. After every kill the
 * session mounts again, holds every acknowledged message in order with no gap or duplicate, and
 * its window is valid (a kill between a call and its result is repaired in the window).
 * AMPLIFIER_KILL_ITERATIONS sets the number of kills (default 20).
 */
const ITERATIONS = Number(process.env.AMPLIFIER_KILL_ITERATIONS ?? 20);

describe("context-persistent survives kill -9 during addMessage", () => {
  const temp = tempDirAndBundledChild("context-kill9", new URL("./fixtures/context-writer.ts", import.meta.url));

  it("no acknowledged message is lost and the session opens, after each of many kills", async () => {
    const storagePath = join(temp.dir, "sessions");
    const counter = getTokenCounter("gpt-4o");
    let acknowledged = 0;
    for (let round = 0; round < ITERATIONS; round++) {
      const writer = startWriter(temp.script, [storagePath, "crashy", "always"]);
      await writer.waitFor(/^ready \d+$/);
      await sleep(15 + Math.random() * 100);
      writer.child.kill("SIGKILL");
      const { signal } = await writer.exited;
      expect(signal, writer.stderr()).toBe("SIGKILL");
      const acked = writer.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
      acknowledged += acked.length;

      const coordinator = new Coordinator({ sessionId: "crashy" });
      const context = await mount(coordinator, { storagePath, strict: true });
      const stored = await context.getMessages();
      const seqs = stored.map((m) => m.metadata?.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
      if (acked.length > 0) expect(seqs.length).toBeGreaterThan(Math.max(...acked));
      const window = await context.getMessagesForRequest(4_000);
      expect(checkWindowInvariants(stored, window, { budget: 4_000, counter })).toEqual([]);
      await coordinator.cleanup();
    }
    expect(acknowledged, "the writer got to add messages between kills").toBeGreaterThan(ITERATIONS);
  }, 180_000);
});
