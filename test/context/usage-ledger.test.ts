import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { getTokenCounter, type TokenCounter } from "../../modules/tokens/index.js";
import { TokenCalibration } from "../../modules/context-manager/token-calibration.js";
import { UsageLedger } from "../../modules/context-manager/usage-ledger.js";

/**
 * A window waits for its bill uncounted: the ledger counts it (with the window's counter and at
 * factor 1) only when a bill arrives, once. An agent loop whose provider reports no usage pays
 * nothing per window for calibration (the agent-loop bench lost 3× its window time when every
 * window was counted twice up front).
 */
function countingCounter(): { counter: TokenCounter; calls: () => number } {
  const real = getTokenCounter("gpt-4o");
  let calls = 0;
  // The counter is frozen: a copy with countRequest wrapped counts the calls.
  const counter: TokenCounter = {
    ...real,
    countRequest: (messages, tools) => {
      calls += 1;
      return real.countRequest(messages, tools);
    },
  };
  return { counter, calls: () => calls };
}

describe("UsageLedger", () => {
  const window: Message[] = [{ role: "user", content: "how many tokens is this?" }];

  it("does not count a window until its bill arrives, then counts it once", () => {
    const ledger = new UsageLedger(new TokenCalibration(), undefined);
    const { counter, calls } = countingCounter();
    for (let i = 0; i < 5; i++) ledger.expect("gpt-4o", counter, window, undefined, counter.safetyFactor);
    expect(calls()).toBe(0);
    const record = ledger.settle({ inputTokens: 20 });
    expect(calls()).toBe(1);
    expect(record).toMatchObject({ counted: getTokenCounter("gpt-4o").countRequest(window), billed: 20 });
    expect(ledger.settle({ inputTokens: 20 })).toBeUndefined();
    expect(calls()).toBe(1);
  });

  it("a newer window replaces the pending one uncounted; reading `pending` counts it once", () => {
    const ledger = new UsageLedger(new TokenCalibration(), undefined);
    const { counter, calls } = countingCounter();
    ledger.expect("gpt-4o", counter, window, undefined, counter.safetyFactor);
    ledger.expect("gpt-4o", counter, [...window, { role: "assistant", content: "a few" }], undefined, counter.safetyFactor);
    const first = ledger.pending;
    const second = ledger.pending;
    expect(calls()).toBe(1);
    expect(second).toBe(first);
    expect(first?.counted).toBe(getTokenCounter("gpt-4o").countRequest([...window, { role: "assistant", content: "a few" }]));
  });

  it("a bill with clearedInputTokens (Anthropic context editing) is calibrated on billed + cleared; a compaction bill on nothing", () => {
    const ledger = new UsageLedger(new TokenCalibration(), undefined);
    const counter = getTokenCounter("gpt-4o");
    ledger.expect("gpt-4o", counter, window, undefined, counter.safetyFactor);
    expect(ledger.settle({ inputTokens: 5, clearedInputTokens: 15 })).toMatchObject({ billed: 20 });
    ledger.expect("gpt-4o", counter, window, undefined, counter.safetyFactor);
    expect(ledger.settle({ inputTokens: 5, compaction: { iterations: 1 } })).toBeUndefined();
    expect(ledger.pending).toBeUndefined();
  });
});
