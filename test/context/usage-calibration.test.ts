import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AmplifierEvents, Message, Provider } from "../../contracts/index.js";
import { HookBus } from "../../core/hooks/index.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { CALIBRATION_RULES, TokenCalibration } from "../../modules/context-manager/token-calibration.js";

/** A provider whose bill is `ratio` × the request's exact-encoding count, announced on the bus like provider modules do. */
function billingProvider(hooks: HookBus, model: string, ratio: number) {
  const raw = getTokenCounter(model, { safetyFactor: 1 });
  const bills: number[] = [];
  const provider: Provider = {
    getInfo: () => ({ id: "fake", defaults: { model, context_window: 1_000_000, max_output_tokens: 8_192 } }),
    async complete({ messages, tools }) {
      const inputTokens = Math.ceil(raw.countRequest(messages, tools) * ratio);
      bills.push(inputTokens);
      const message: Message = { role: "assistant", content: "ok" };
      await hooks.emit("provider:response", { provider: "fake", model: `${model}-20250101`, message, usage: { inputTokens, outputTokens: 2 } });
      return { message, usage: { inputTokens } };
    },
  };
  return { provider, bills };
}

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(" ");

describe("counts reconciled with the bill (contracts/TOKENS.md §8)", () => {
  it("a provider billing 12 % more than counted: the factor converges within bounds and windows stop overflowing the billed budget", async () => {
    const hooks = new HookBus();
    const events: AmplifierEvents["context:calibration"][] = [];
    hooks.on("context:calibration", (e) => void events.push(e));
    // An exact model (factor 1.0) whose bill is 12 % above the count (say, a hidden system prompt
    // of the provider's): windows cut at the budget are billed above it until calibrated.
    const model = "gpt-4o";
    const { provider, bills } = billingProvider(hooks, model, 1.12);
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { model, compactThreshold: 1, compactTarget: 0.95 }, hooks });
    await context.addMessage({ role: "system", content: "You are terse." });
    for (let i = 0; i < 8; i++) {
      await context.addMessage({ role: "user", content: words(300, 100 + i) });
      await context.addMessage({ role: "assistant", content: words(200, 200 + i) });
    }
    const budget = 4_000;
    const overflowing: number[] = [];
    for (let turn = 0; turn < 12; turn++) {
      await context.addMessage({ role: "user", content: words(300, turn) });
      const window = await context.getMessagesForRequest(budget, provider);
      await provider.complete!({ messages: window });
      if (bills.at(-1)! > budget) overflowing.push(turn);
      await context.addMessage({ role: "assistant", content: words(200, turn + 50) });
    }
    expect(events).toHaveLength(12);
    const factors = events.map((e) => e.factor);
    // Before the 3rd bill the default applies; from then on the calibrated factor.
    expect(events[0]!.previousFactor).toBe(1);
    const converged = Math.ceil(1.12 * (1 + CALIBRATION_RULES.headroom) * 100) / 100;
    expect(factors.slice(2).every((f) => f === converged)).toBe(true);
    expect(converged).toBeGreaterThanOrEqual(CALIBRATION_RULES.minFactor);
    expect(converged).toBeLessThanOrEqual(CALIBRATION_RULES.maxFactor);
    // Uncalibrated, full windows were billed above the budget; calibrated ones never are.
    expect(overflowing.length).toBeGreaterThan(0);
    expect(overflowing.every((turn) => turn <= 2)).toBe(true);
    for (const e of events) {
      expect(e.accepted).toBe(true);
      expect(e.ratio).toBeCloseTo(1.12, 2);
      expect(e.drift).toBe(e.billed - e.counted);
    }
    expect(context.lastUsage?.factor).toBe(converged);
  });

  it("on an exact model the factor never goes below 1.0, and a provider billing 4× is capped at 2.0", async () => {
    const calibration = new TokenCalibration();
    for (let i = 0; i < 10; i++) calibration.record({ model: "gpt-4o", counted: 1_000, billed: 500 }, 1);
    expect(calibration.factorFor("gpt-4o", 1)).toBe(CALIBRATION_RULES.minFactor);
    for (let i = 0; i < 10; i++) calibration.record({ model: "claude-sonnet-4", counted: 1_000, billed: 4_000 }, 1.2);
    expect(calibration.factorFor("claude-sonnet-4", 1.2)).toBe(CALIBRATION_RULES.maxFactor);
  });

  it("absurd reports are rejected with a reason and leave the factor where it was", () => {
    const calibration = new TokenCalibration();
    for (let i = 0; i < 3; i++) calibration.record({ model: "claude-sonnet-4", counted: 1_000, billed: 1_150 }, 1.2);
    const before = calibration.factorFor("claude-sonnet-4", 1.2);
    expect(before).toBe(1.17); // ceil(1.15 × 1.01, 0.01)
    for (const billed of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 1e12, 100]) {
      const outcome = calibration.record({ model: "claude-sonnet-4", counted: 1_000, billed }, 1.2);
      expect(outcome.accepted, `billed ${billed}`).toBe(false);
      expect(outcome.reason).toMatch(/positive|outside/);
      expect(outcome.factor).toBe(before);
    }
    expect(calibration.record({ model: "claude-sonnet-4", counted: 0, billed: 10 }, 1.2).accepted).toBe(false);
    expect(calibration.factorFor("claude-sonnet-4", 1.2)).toBe(before);
    expect(calibration.toJSON().models["claude-sonnet-4"]).toMatchObject({ samples: 3, rejected: 7 });
  });

  it("one bill per window: the explicit recordUsage after the bus already matched it records nothing", async () => {
    const hooks = new HookBus();
    const { provider } = billingProvider(hooks, "claude-sonnet-4", 1.1);
    const context = new HistoryContextManager({ moduleName: "context-simple", options: {}, hooks });
    await context.addMessage({ role: "user", content: "hello" });
    const window = await context.getMessagesForRequest(10_000, provider);
    const response = await provider.complete!({ messages: window });
    expect(context.lastUsage?.billed).toBe(response.usage!.inputTokens);
    expect(await context.recordUsage(response.usage)).toBeUndefined();
    // A bill for another model is not this window's.
    await context.getMessagesForRequest(10_000, provider);
    expect(await context.recordUsage({ inputTokens: 50 }, { model: "gpt-4o" })).toBeUndefined();
    expect((await context.recordUsage({ inputTokens: 50 }))?.model).toBe("claude-sonnet-4");
    await expect(context.recordUsage("lots" as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("a config that fixes safetyFactor records the drift but keeps its factor", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { model: "claude-sonnet-4", safetyFactor: 1.5 } });
    for (let i = 0; i < 5; i++) {
      await context.addMessage({ role: "user", content: words(50, i) });
      await context.getMessagesForRequest(10_000);
      const record = await context.recordUsage({ inputTokens: 100 });
      expect(record).toMatchObject({ applied: false, factor: 1.5, previousFactor: 1.5 });
    }
    expect(context.calibration.factorFor("claude-sonnet-4", 1.2)).toBeLessThan(1.5); // learnt, not applied
  });

  it("the record round-trips through JSON, and a bad record is INVALID_ARGUMENT", () => {
    const calibration = new TokenCalibration();
    for (const billed of [1_100, 1_130, 1_090, 1_120]) calibration.record({ model: "claude-opus-4-5-20251101", counted: 1_000, billed }, 1.2);
    const copy = TokenCalibration.fromJSON(JSON.parse(JSON.stringify(calibration)));
    expect(copy.toJSON()).toEqual(calibration.toJSON());
    expect(copy.factorFor("claude-opus-4-5", 1.2)).toBe(calibration.factorFor("claude-opus-4-5", 1.2));
    for (const bad of [null, { version: 2, models: {} }, { version: 1, models: { x: { ratios: [9], samples: 1, rejected: 0 } } }, { version: 1, models: { x: { ratios: [1.1, 1.1], samples: 1, rejected: 0 } } }]) {
      expect(() => TokenCalibration.fromJSON(bad)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
  });
});

describe("context-persistent keeps the calibration beside the session", () => {
  let dir: string;
  const sessions: Session[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "amplifier-calibration-"));
  });
  afterEach(async () => {
    await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const session = await createSession({ session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId: "cal", model: "claude-sonnet-4" } } } });
    sessions.push(session);
    return session;
  };

  it("a bill recorded in one process is the calibration of the next (<sessionId>.calibration.json)", async () => {
    const first = await open();
    await first.context.addMessage({ role: "user", content: words(100, 1) });
    for (let i = 0; i < 3; i++) {
      await first.context.getMessagesForRequest(10_000);
      await first.hooks.emit("provider:response", { provider: "anthropic", model: "claude-sonnet-4-20250514", message: { role: "assistant", content: "ok" }, usage: { inputTokens: 130 } });
    }
    const factor = first.context.calibration.factorFor("claude-sonnet-4", 1.2);
    await first.close();
    const file = JSON.parse(await readFile(join(dir, "cal.calibration.json"), "utf8"));
    expect(file.models["claude-sonnet-4"].samples).toBe(3);
    const second = await open();
    expect(second.context.calibration.factorFor("claude-sonnet-4", 1.2)).toBe(factor);
  });

  it("a calibration file that is not a record is reported and replaced by an empty calibration", async () => {
    await writeFile(join(dir, "cal.calibration.json"), "{ not json");
    const coordinator = new Coordinator({ sessionId: "cal" });
    const reasons: string[] = [];
    coordinator.hooks.on("context:storage_degraded", (e) => void reasons.push(e.reason));
    const context = await mountPersistent(coordinator, { storagePath: dir });
    expect(context.calibration.toJSON()).toEqual({ version: 1, models: {} });
    expect(reasons).toEqual([expect.stringContaining("cal.calibration.json cannot be used")]);
    await coordinator.cleanup();
  });
});
