import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/index.js";
import { exportTokenCounts, getTokenCounter } from "../../modules/tokens/index.js";
import { HistoryContextManager } from "../../modules/context-manager/index.js";

/**
 * Issue 31 item 3 in the context modules: a turn's window prices its new message by a proven bound
 * when that cannot change the window (window-assembler.ts), and nothing else in the turn counts it
 * either (the spill check bounds it too, the window record reads its figures lazily); it is counted
 * afterwards, in idle time owned by the manager (idle-count.ts) — and a closed manager counts
 * nothing more.
 */
const counter = getTokenCounter("gpt-4o");
const idle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
let seq = 0;
/** Whether the count cache holds `message` (by its id and contents: the stored copy counts). */
const counted = (message: Message) => Object.keys(exportTokenCounts([message]).caches).length > 0;

async function cutSession(): Promise<HistoryContextManager> {
  // Spilling on (the default): its check of the new message must not count it either.
  const context = new HistoryContextManager({ moduleName: "test-idle-count" });
  await context.addMessage({ role: "system", content: "You are terse." });
  for (let i = 0; i < 300; i++) {
    await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum dolor ".repeat(25)}` });
    await context.addMessage({ role: "assistant", content: `answer ${i} ${"sit amet consectetur ".repeat(25)}` });
  }
  // Past the threshold: cut once; the next windows keep that cut.
  await context.getMessagesForRequest(50_000);
  await idle();
  return context;
}

function fresh(): Message {
  return { role: "user", content: `a new question ${++seq} ${Math.random()} ${"about the invoices ".repeat(20)}`, metadata: { id: `idle-${seq}-${Math.random()}` } };
}

describe("counting off the hot path: the idle count", () => {
  it("sends the window before the new message is counted, counts it in idle time, and reports exact figures", async () => {
    const context = await cutSession();
    const message = fresh();
    await context.addMessage(message);
    const window = await context.getMessagesForRequest(50_000);
    expect(context.explainLastWindow()!.report.cutReason).toBe("kept");
    // Not tokenized by the turn…
    expect(counted(message)).toBe(false);
    await idle();
    // …but right after it, in idle time.
    expect(counted(message)).toBe(true);
    const record = context.windowRecords().at(-1)!;
    expect(record.windowTokens).toBe(counter.countRequest(window));
    expect(context.explainLastWindow()!.report.windowTokens).toBe(counter.countRequest(window));
    await context.close();
  });

  it("a figure read before idle time is exact too (it counts then), and a closed manager counts nothing more", async () => {
    const context = await cutSession();
    const read = fresh();
    await context.addMessage(read);
    const window = await context.getMessagesForRequest(50_000);
    expect(context.windowRecords().at(-1)!.windowTokens).toBe(counter.countRequest(window));
    const closing = fresh();
    await context.addMessage(closing);
    await context.getMessagesForRequest(50_000);
    await context.close();
    await idle();
    expect(counted(closing)).toBe(false);
  });
});
