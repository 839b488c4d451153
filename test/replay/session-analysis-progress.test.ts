/**
 * analyzeSession on a server's thread (the Inspector): it reports each replayed turn, leaves the
 * event loop free between turns (a long session never holds the server for its whole replay), and
 * stops when its signal aborts (the session changed: its result is no longer wanted).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { analyzeSession } from "../../src/replay/session-analysis.js";

const conversation = (turns: number): Message[] =>
  Array.from({ length: turns }, (_, i) => [
    { role: "user", content: `question ${i} ${"words ".repeat(30)}`, metadata: { id: `u${i}` } } as Message,
    { role: "assistant", content: `answer ${i} ${"words ".repeat(30)}`, metadata: { id: `a${i}` } } as Message,
  ]).flat();

describe("analyzeSession", () => {
  it("reports each turn, lets the event loop run between turns, and stops when aborted", async () => {
    const messages = conversation(6);
    const progress: number[] = [];
    let immediateRan = false;
    let ranBeforeSecondTurn = false;
    setImmediate(() => (immediateRan = true));
    const { analysis } = await analyzeSession(messages, {
      budget: 2_000,
      onProgress: (done, total) => {
        expect(total).toBe(6);
        progress.push(done);
        if (done === 2) ranBeforeSecondTurn = immediateRan;
      },
    });
    expect(analysis.turns).toHaveLength(6);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ranBeforeSecondTurn).toBe(true);

    const controller = new AbortController();
    const aborted = analyzeSession(messages, { budget: 2_000, signal: controller.signal, onProgress: (done) => done === 2 && controller.abort(new Error("session changed")) });
    await expect(aborted).rejects.toThrow("session changed");
  });
});
