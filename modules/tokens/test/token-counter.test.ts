/** getTokenCounter(): tokenizer choice, safety factor, the unknown-model warning, validation. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { countTokens, DEFAULT_MODEL, getTokenCounter } from "../index.js";
import type { Message } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import { CORPORATE_JARGON, WEATHER_TOOLS, wordTokenizer } from "./fixtures.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("tokenizer and encoding", () => {
  it("uses the model's encoding", () => {
    expect(getTokenCounter("gpt-4").encoding).toBe("cl100k_base");
    expect(getTokenCounter("gpt-4o-2024-08-06").encoding).toBe("o200k_base");
    expect(getTokenCounter("llama-3.1-8b-instruct").encoding).toBe("cl100k_base");
    expect(getTokenCounter("claude-sonnet-4").encoding).toBe("o200k_base");
  });

  it(`defaults to ${DEFAULT_MODEL} when no model is given`, () => {
    const counter = getTokenCounter();
    expect(counter.model).toBe("gpt-4o");
    expect(counter.encoding).toBe("o200k_base");
    expect(counter.modelInfo?.name).toBe("gpt-4o");
  });

  it("a plugged-in tokenizer does all the counting and names the encoding", () => {
    const tokenizer = wordTokenizer("my-bpe");
    const counter = getTokenCounter("gpt-4o", { tokenizer });
    expect(counter.encoding).toBe("my-bpe");
    expect(counter.countText("one two three")).toBe(3);
    expect(counter.countMessage({ role: "user", content: "a b" })).toBe(3 + 1 + 2);
    expect(tokenizer.calls).toEqual(["one two three", "user", "a b"]);
  });

  it("special-token markers in text are counted as ordinary text, not rejected", () => {
    expect(getTokenCounter("gpt-4o").countText("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("countText('') is 0", () => {
    expect(getTokenCounter("gpt-4o").countText("")).toBe(0);
  });
});

describe("safety factor", () => {
  const message: Message = { role: "user", content: "The quick brown fox jumps over the lazy dog." };

  it("OpenAI models count exactly (factor 1)", () => {
    expect(getTokenCounter("gpt-4o").safetyFactor).toBe(1);
  });

  it("non-OpenAI families apply their documented factor, rounding each part up", () => {
    const claude = getTokenCounter("claude-sonnet-4");
    const exact = getTokenCounter("claude-sonnet-4", { safetyFactor: 1 });
    expect(claude.safetyFactor).toBe(1.2);
    expect(claude.countMessage(message)).toBe(Math.ceil(exact.countMessage(message) * 1.2));
    expect(claude.replyPriming).toBe(Math.ceil(3 * 1.2));
    expect(claude.countTools(WEATHER_TOOLS)).toBe(Math.ceil(exact.countTools(WEATHER_TOOLS) * 1.2));
    expect(claude.countText("hello world")).toBe(Math.ceil(exact.countText("hello world") * 1.2));
  });

  it("options.safetyFactor overrides the default, for any model", () => {
    const counter = getTokenCounter("gpt-4o", { tokenizer: wordTokenizer(), safetyFactor: 1.5 });
    expect(counter.countMessage({ role: "user", content: "a b c" })).toBe(Math.ceil(7 * 1.5));
    expect(counter.replyPriming).toBe(5);
  });

  it("a plugged-in tokenizer is taken as exact (factor 1) unless told otherwise", () => {
    expect(getTokenCounter("claude-sonnet-4", { tokenizer: wordTokenizer() }).safetyFactor).toBe(1);
  });
});

describe("unknown models", () => {
  it("fall back to o200k with the 'other' factor and warn once per model name", () => {
    const onWarning = vi.fn();
    const counter = getTokenCounter("acme-ultra-9000", { onWarning });
    getTokenCounter("acme-ultra-9000", { onWarning }).countText("x");
    expect(counter.encoding).toBe("o200k_base");
    expect(counter.modelInfo).toBeUndefined();
    expect(counter.safetyFactor).toBe(1.2);
    expect(onWarning).toHaveBeenCalledTimes(1);
    expect(onWarning.mock.calls[0]?.[0]).toMatch(/acme-ultra-9000.*o200k_base.*registerModel/s);
    getTokenCounter("acme-ultra-9001", { onWarning });
    expect(onWarning).toHaveBeenCalledTimes(2);
  });

  it("warn through console.warn by default, once", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    countTokens([{ role: "user", content: "hi" }], { model: "acme-default-sink" });
    countTokens([{ role: "user", content: "hi" }], { model: "acme-default-sink" });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("do not warn when a tokenizer is supplied (nothing falls back)", () => {
    const onWarning = vi.fn();
    getTokenCounter("acme-with-tokenizer", { tokenizer: wordTokenizer(), onWarning });
    expect(onWarning).not.toHaveBeenCalled();
  });

  it("known models never warn", () => {
    const onWarning = vi.fn();
    getTokenCounter("gpt-4o-2024-11-20", { onWarning });
    expect(onWarning).not.toHaveBeenCalled();
  });
});

describe("countTokens", () => {
  it("passes tokenizer and safetyFactor through to the counter", () => {
    const count = countTokens([{ role: "user", content: "a b" }], { model: "gpt-4o", tokenizer: wordTokenizer(), safetyFactor: 2 });
    expect(count).toBe(2 * 6 + 2 * 3);
  });

  it("equals getTokenCounter(model).countRequest(messages, tools)", () => {
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-4o", tools: WEATHER_TOOLS })).toBe(
      getTokenCounter("gpt-4o").countRequest(CORPORATE_JARGON, WEATHER_TOOLS),
    );
  });
});

describe("bad arguments are INVALID_ARGUMENT naming the argument", () => {
  const cases: Array<[string, () => unknown, string]> = [
    ["empty model", () => getTokenCounter(""), "model"],
    ["model not a string", () => getTokenCounter(4 as unknown as string), "model"],
    ["options not an object", () => getTokenCounter("gpt-4o", null as never), "options"],
    ["tokenizer without count", () => getTokenCounter("gpt-4o", { tokenizer: { encoding: "x" } as Tokenizer }), "options.tokenizer"],
    ["zero safety factor", () => getTokenCounter("gpt-4o", { safetyFactor: 0 }), "options.safetyFactor"],
    ["infinite safety factor", () => getTokenCounter("gpt-4o", { safetyFactor: Infinity }), "options.safetyFactor"],
    ["onWarning not a function", () => getTokenCounter("gpt-4o", { onWarning: "log" as never }), "options.onWarning"],
    ["messages not an array", () => getTokenCounter("gpt-4o").countMessages({} as never), "messages"],
    ["text not a string", () => getTokenCounter("gpt-4o").countText(5 as never), "text"],
    ["countTokens without options", () => countTokens([], undefined as never), "options"],
    ["countTokens without a model", () => countTokens([], {} as never), "options.model"],
  ];
  for (const [what, call, path] of cases) {
    it(what, () => {
      expect(call).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", path }));
    });
  }
});

describe("a failing plugged-in tokenizer is TOKENIZER_FAILED", () => {
  const message: Message = { role: "user", content: "x" };

  it("when it throws (the cause is kept)", () => {
    const boom = new Error("boom");
    const tokenizer: Tokenizer = { encoding: "bad", count: () => { throw boom; } };
    expect(() => getTokenCounter("gpt-4o", { tokenizer }).countMessage(message)).toThrowError(
      expect.objectContaining({ code: "TOKENIZER_FAILED", cause: boom }),
    );
  });

  it.each([[-1], [1.5], [Number.NaN], ["3"]])("when it returns %s", (value) => {
    const tokenizer = { encoding: "bad", count: () => value } as unknown as Tokenizer;
    expect(() => getTokenCounter("gpt-4o", { tokenizer }).countText("x")).toThrowError(
      expect.objectContaining({ code: "TOKENIZER_FAILED" }),
    );
  });
});

describe("the counter object", () => {
  it("is frozen and exposes the documented read-only facts", () => {
    const counter = getTokenCounter("gpt-4o");
    expect(Object.isFrozen(counter)).toBe(true);
    expect(counter).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", replyPriming: 3, safetyFactor: 1 });
  });
});
