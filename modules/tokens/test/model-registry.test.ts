/** The model registry: resolution rules, the built-in table, registration and its teardown. */
import { afterEach, describe, expect, it } from "vitest";
import { getModelInfo, listModels, registerModel, type ModelRegistration } from "../index.js";

const teardowns: Array<() => void> = [];
afterEach(() => {
  while (teardowns.length) teardowns.pop()?.();
});

describe("resolution", () => {
  it.each([
    ["gpt-4o-2024-08-06", "gpt-4o"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4-0613", "gpt-4"],
    ["gpt-4-turbo-2024-04-09", "gpt-4-turbo"],
    ["gpt-4-1106-preview", "gpt-4-turbo"],
    ["gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"],
    ["gpt-3.5-turbo-0125", "gpt-3.5-turbo"],
    ["o3-mini-2025-01-31", "o3-mini"],
    ["gpt-5-mini-2025-08-07", "gpt-5-mini"],
    ["claude-sonnet-4-20250514", "claude-sonnet-4"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["claude-opus-4-1-20250805", "claude-opus-4-1"],
    ["claude-3-5-sonnet-latest", "claude-3-5-sonnet"],
    ["claude-3-5-sonnet@20240620", "claude-3-5-sonnet"],
    ["us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet"],
    ["openai/gpt-4o", "gpt-4o"],
    ["models/gemini-2.5-pro", "gemini-2.5-pro"],
    ["gemini-2.5-flash-lite", "gemini-2.5-flash"],
    ["gemini-1.5-pro-002", "gemini-1.5-pro"],
    ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3"],
    ["llama3.1:8b", "llama-3.1"],
    ["meta.llama3-1-70b-instruct-v1:0", "llama-3.1"],
    ["Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"],
    ["GPT-4O", "gpt-4o"],
  ])("%s → %s", (given, name) => {
    expect(getModelInfo(given)?.name).toBe(name);
  });

  it("only -, : and @ are boundaries: gpt-4.1 is not gpt-4, and unknown names resolve to nothing", () => {
    expect(getModelInfo("gpt-4.1")?.contextWindow).toBe(1_047_576);
    expect(getModelInfo("gpt-4x")).toBeUndefined();
    expect(getModelInfo("gpt-6")).toBeUndefined();
    expect(getModelInfo("")).toBeUndefined();
    expect(getModelInfo(42 as unknown as string)).toBeUndefined();
  });
});

describe("the built-in table", () => {
  it("OpenAI encodings: cl100k for gpt-4 / gpt-4-turbo / gpt-3.5-turbo, o200k from gpt-4o on", () => {
    for (const m of ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo"]) expect(getModelInfo(m)?.encoding).toBe("cl100k_base");
    for (const m of ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-nano", "o1", "o3", "o4-mini", "gpt-5", "gpt-5-nano"]) {
      expect(getModelInfo(m)?.encoding).toBe("o200k_base");
    }
  });

  it("carries context window and max output", () => {
    expect(getModelInfo("gpt-4o")).toMatchObject({ contextWindow: 128_000, maxOutputTokens: 16_384, family: "openai", provider: "openai" });
    expect(getModelInfo("gpt-4")).toMatchObject({ contextWindow: 8_192, maxOutputTokens: 8_192 });
    expect(getModelInfo("claude-sonnet-4")).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 64_000, family: "anthropic" });
    expect(getModelInfo("gemini-1.5-pro")).toMatchObject({ contextWindow: 2_097_152, family: "gemini", provider: "google" });
    expect(getModelInfo("llama-3.3-70b")).toMatchObject({ contextWindow: 131_072, family: "llama", provider: "meta" });
  });

  it("every entry is consistent: positive limits, output within the window, a factor ≥ 1", () => {
    const models = listModels();
    expect(models.length).toBeGreaterThan(30);
    for (const m of models) {
      expect(m.contextWindow, m.name).toBeGreaterThan(0);
      expect(m.maxOutputTokens, m.name).toBeLessThanOrEqual(m.contextWindow);
      expect(m.safetyFactor, m.name).toBeGreaterThanOrEqual(1);
      expect(getModelInfo(m.name), m.name).toBe(m);
    }
  });

  it("default safety factors: 1 for OpenAI, above 1 for approximated families", () => {
    expect(getModelInfo("gpt-4o")?.safetyFactor).toBe(1);
    expect(getModelInfo("claude-opus-4")?.safetyFactor).toBeGreaterThan(1);
    expect(getModelInfo("gemini-2.5-pro")?.safetyFactor).toBeGreaterThan(1);
    expect(getModelInfo("llama-3.1")?.safetyFactor).toBeGreaterThan(1);
  });

  it("listModels folds aliases into their model and is sorted", () => {
    const names = listModels().map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(names).not.toContain("llama3.1");
  });

  it("ModelInfo objects are frozen", () => {
    expect(Object.isFrozen(getModelInfo("gpt-4o"))).toBe(true);
  });
});

describe("registerModel", () => {
  const base: ModelRegistration = { contextWindow: 32_000, maxOutputTokens: 4_000, encoding: "o200k_base", family: "other", provider: "acme" };

  it("adds a model, resolved by prefix and aliases, with the family's default factor", () => {
    teardowns.push(registerModel("acme-1", { ...base, aliases: ["acme-one"] }));
    expect(getModelInfo("acme-1-2025")).toMatchObject({ name: "acme-1", contextWindow: 32_000, safetyFactor: 1.2 });
    expect(getModelInfo("ACME-ONE")?.name).toBe("acme-1");
    expect(listModels().map((m) => m.name)).toContain("acme-1");
  });

  it("overrides a built-in until its teardown runs", () => {
    const before = getModelInfo("gpt-4o");
    const undo = registerModel("gpt-4o", { ...base, family: "openai", contextWindow: 64_000, safetyFactor: 1.05 });
    expect(getModelInfo("gpt-4o-2024-08-06")).toMatchObject({ contextWindow: 64_000, safetyFactor: 1.05 });
    undo();
    expect(getModelInfo("gpt-4o-2024-08-06")).toBe(before);
  });

  it("a teardown does not undo a later registration of the same name", () => {
    const first = registerModel("acme-2", base);
    teardowns.push(registerModel("acme-2", { ...base, contextWindow: 50_000 }));
    first();
    expect(getModelInfo("acme-2")?.contextWindow).toBe(50_000);
  });

  it("a teardown removes a new name entirely", () => {
    registerModel("acme-3", base)();
    expect(getModelInfo("acme-3")).toBeUndefined();
  });

  const invalid: Array<[string, unknown, unknown, string]> = [
    ["empty name", "", base, "name"],
    ["not an object", "x", null, "info"],
    ["zero context window", "x", { ...base, contextWindow: 0 }, "info.contextWindow"],
    ["fractional max output", "x", { ...base, maxOutputTokens: 1.5 }, "info.maxOutputTokens"],
    ["output larger than the window", "x", { ...base, maxOutputTokens: 64_000 }, "info.maxOutputTokens"],
    ["unknown encoding", "x", { ...base, encoding: "p50k_base" }, "info.encoding"],
    ["unknown family", "x", { ...base, family: "mistral" }, "info.family"],
    ["empty provider", "x", { ...base, provider: "" }, "info.provider"],
    ["non-positive safety factor", "x", { ...base, safetyFactor: 0 }, "info.safetyFactor"],
    ["aliases not strings", "x", { ...base, aliases: [1] }, "info.aliases"],
    ["negative image price", "x", { ...base, imageTilePrice: { base: -1, tile: 1 } }, "info.imageTilePrice.base"],
  ];
  for (const [what, name, info, path] of invalid) {
    it(`rejects ${what} with INVALID_ARGUMENT at ${path}`, () => {
      expect(() => registerModel(name as string, info as ModelRegistration)).toThrowError(
        expect.objectContaining({ code: "INVALID_ARGUMENT", path }),
      );
      expect(getModelInfo("x")).toBeUndefined();
    });
  }
});
