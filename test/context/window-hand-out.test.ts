/**
 * A window holds the stored messages themselves, frozen — no copy per window (issue 31, item 2;
 * contracts/CONTEXT.md "Copies"): the same object for a stored message from one window to the
 * next, only what the window or a strategy made or changed is new, everything frozen, and the
 * stored history never changed by assembling a window (invariant 5) — for prepared, resumed eager,
 * resumed lazy and packed messages.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { holdMessage } from "../../modules/context-manager/held-message.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { freezeDeep } from "../../modules/window/message-copy.js";
import { windowMarkOf } from "../../modules/window/window-marks.js";
import { generateHistory } from "../bench/history-generator.js";
import { makeTempDir } from "../stores/support.js";

const POOL = generateHistory({ count: 160, seed: 310, idPrefix: "h" });
const json = (value: unknown) => JSON.stringify(value);
const STRATEGIES = [{ use: "token-budget", budget: 5_000, strategies: [{ use: "tool-result-compaction", maxChars: 300 }, { use: "sliding-window", maxMessages: 30 }] }];

/** Every message and every nested value of `m` is frozen. */
function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(deepFrozen);
}

describe("windows hand out the stored messages, frozen (issue 31)", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    temp = await makeTempDir("hand-out");
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close().catch(() => undefined);
    await temp.remove();
  });

  for (const [label, strategies] of [
    ["no strategies", []],
    ["token-budget pipeline", STRATEGIES],
  ] as const) {
    it(`${label}: the same frozen objects window after window; writes throw; the history never changes`, async () => {
      const context = new HistoryContextManager({ moduleName: "hand-out-test", options: { strategies } as never });
      closers.push(() => context.close());
      await context.setMessages(POOL.slice(0, 120));
      const before = json(await context.getMessages());
      const first = await context.getMessagesForRequest(9_000);
      const second = await context.getMessagesForRequest(9_000);
      expect(second).not.toBe(first);
      expect(first.length).toBeGreaterThan(10);
      // No copy per window: each message of the first window is the very object of the second.
      expect(second.every((m, k) => m === first[k])).toBe(true);
      for (const m of first) {
        expect(deepFrozen(m)).toBe(true);
        expect(() => {
          (m as { content: unknown }).content = "changed";
        }).toThrow(TypeError);
        expect(() => {
          (m.metadata as Record<string, unknown>).id = "changed";
        }).toThrow(TypeError);
      }
      // The array is the caller's.
      first.length = 0;
      expect(json(await context.getMessages())).toBe(before);
      expect((await context.getMessagesForRequest(9_000)).length).toBe(second.length);
    });
  }

  it("only what the window changed is new: a truncated prompt is a new frozen message, the stored one untouched", async () => {
    const context = new HistoryContextManager({ moduleName: "hand-out-test" });
    closers.push(() => context.close());
    await context.addMessage({ role: "system", content: "be brief" });
    await context.addMessage({ role: "user", content: `long ${"word ".repeat(3_000)}` });
    const stored = json(await context.getMessages());
    const window = await context.getMessagesForRequest(800);
    const prompt = window.at(-1)!;
    expect(windowMarkOf(prompt)?.truncated).toBeDefined();
    expect(Object.isFrozen(prompt)).toBe(true);
    expect(json(await context.getMessages())).toBe(stored);
  });

  it("a lazily resumed message: the window freezes its parsed object; the lazy message still spreads, serializes and refuses writes", async () => {
    const writer = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
    await writer.replace("s", POOL.slice(0, 80));
    await writer.close();
    const store = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
    const { messages } = await store.open("s");
    const context = new HistoryContextManager({ moduleName: "hand-out-test", store, sessionId: "s", initialMessages: messages });
    closers.push(() => context.close());
    const window = await context.getMessagesForRequest(6_000);
    // The stored messages the window sends as they are (not a spilled excerpt or a truncated copy: those are new).
    const shown = messages.filter((m) => window.some((w) => w.metadata?.id === m.metadata?.id && windowMarkOf(w) === undefined) && m.role !== "system");
    expect(shown.length).toBeGreaterThan(5);
    for (const lazy of shown) {
      const handedOut = window.find((w) => w.metadata?.id === lazy.metadata?.id && windowMarkOf(w) === undefined)!;
      expect(deepFrozen(handedOut)).toBe(true);
      // Through the proxy, after its body was frozen: keys, spread and JSON as before.
      expect(JSON.parse(JSON.stringify(lazy))).toEqual(JSON.parse(JSON.stringify(handedOut)));
      expect({ ...lazy }).toEqual({ ...handedOut });
      expect(() => {
        (lazy as { content: unknown }).content = "changed";
      }).toThrow(TypeError);
    }
    // A second window hands out the same objects.
    const again = await context.getMessagesForRequest(6_000);
    expect(again.every((m, k) => m === window[k])).toBe(true);
  });

  it("a held message over a frozen body reads, spreads, serializes and freezes like a plain frozen message", () => {
    const body = freezeDeep(JSON.parse(JSON.stringify(POOL[3]!)) as Message);
    const held = holdMessage(body);
    expect(Object.keys(held)).toEqual(Object.keys(body));
    expect({ ...held }).toEqual({ ...body });
    expect(JSON.stringify(held)).toBe(JSON.stringify(body));
    expect(Object.getOwnPropertyDescriptor(held, "role")).toMatchObject({ value: body.role, writable: false });
    expect(() => {
      (held as { role: unknown }).role = "user";
    }).toThrow(TypeError);
    // Freezing the held message makes it plain and frozen (the language's own check holds).
    Object.freeze(held);
    expect(Object.isFrozen(held)).toBe(true);
    expect(JSON.stringify(held)).toBe(JSON.stringify(body));
  });
});
