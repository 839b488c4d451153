import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createPipeline, createStrategy, StrategyRegistry } from "../registry.js";
import { defineStrategy } from "@amplifier-ts/contracts";

const fail = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error("did not throw");
};

describe("strategy registry", () => {
  it("builds every agents strategy from a config entry with defaults", () => {
    for (const use of ["sliding-window", "tool-result-compaction", "selective-tool-call", "truncation", "token-budget"]) {
      expect(createStrategy({ use }).name).toBe(use);
    }
  });

  it("unknown strategy → UNKNOWN_STRATEGY with a did-you-mean hint", () => {
    const e = fail(() => createPipeline([{ use: "tool-result-compaction" }, { use: "sliding_window" }]));
    expect(e.code).toBe("UNKNOWN_STRATEGY");
    expect(e.details).toMatchObject({ path: "strategies[1].use", given: "sliding_window", hint: 'did you mean "sliding-window"?' });
  });

  it("unknown option → INVALID_STRATEGY_OPTIONS naming strategy and path, with a camelCase hint", () => {
    const e = fail(() => createPipeline([{ use: "tool-result-compaction", max_chars: 200 }]));
    expect(e.code).toBe("INVALID_STRATEGY_OPTIONS");
    expect(e.details).toMatchObject({ module: "tool-result-compaction", path: "strategies[0].max_chars", given: 200, hint: 'did you mean "maxChars"?' });
  });

  it("bad option value → path, given, expected", () => {
    const e = fail(() => createPipeline([{ use: "sliding-window" }, { use: "tool-result-compaction", maxChars: -3 }]));
    expect(e.code).toBe("INVALID_STRATEGY_OPTIONS");
    expect(e.details).toMatchObject({ module: "tool-result-compaction", path: "strategies[1].maxChars", given: -3 });
    expect(String(e.details.expected)).not.toBe("");
  });

  it("validates token-budget children with their own path", () => {
    const e = fail(() => createStrategy({ use: "token-budget", budget: 1000, strategies: [{ use: "truncation", maxMessagez: 3 }] }, "strategies[2]"));
    expect(e.details).toMatchObject({ module: "truncation", path: "strategies[2].strategies[0].maxMessagez", hint: 'did you mean "maxMessages"?' });
    expect(fail(() => createStrategy({ use: "token-budget", model: "no-such-model-xyz" })).code).toBe("INVALID_STRATEGY_OPTIONS");
    expect(fail(() => createStrategy({ use: "token-budget", model: "gpt-4o", budget: 5 })).code).toBe("INVALID_STRATEGY_OPTIONS");
  });

  it("rejects an entry without `use`, and a non-array config", () => {
    expect(fail(() => createPipeline([{ maxMessages: 3 }])).details).toMatchObject({ path: "strategies[0].use" });
    expect(fail(() => createPipeline({ use: "truncation" })).code).toBe("INVALID_STRATEGY_OPTIONS");
  });

  it("a third party registers its own strategy and gets its teardown", () => {
    const registry = new StrategyRegistry();
    const off = registry.register(defineStrategy({ name: "noop", description: "", optionsSchema: z.object({}).strict(), create: () => ({ name: "noop", compact: (ms) => [...ms] }) }));
    expect(registry.create({ use: "noop" }).name).toBe("noop");
    off();
    expect(fail(() => registry.create({ use: "noop" })).code).toBe("UNKNOWN_STRATEGY");
  });
});
