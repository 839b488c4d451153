/**
 * tiktoken loads lazily: importing the package or creating a counter does not load the WASM;
 * the first count does. (Own file: vitest isolates modules per file, so nothing has loaded
 * tiktoken before these tests.)
 */
import { expect, it } from "vitest";
import { getTokenCounter, getTiktokenTokenizer } from "../index.js";
import { isTiktokenLoaded } from "../tiktoken-tokenizer.js";

it("importing and creating counters does not load tiktoken; the first count does", () => {
  expect(isTiktokenLoaded()).toBe(false);
  const counter = getTokenCounter("gpt-4o");
  getTokenCounter("gpt-4");
  expect(isTiktokenLoaded()).toBe(false);
  expect(counter.countText("tiktoken is great!")).toBe(6);
  expect(isTiktokenLoaded()).toBe(true);
});

it("tokenizers are shared per encoding", () => {
  expect(getTiktokenTokenizer("o200k_base")).toBe(getTiktokenTokenizer("o200k_base"));
  expect(getTiktokenTokenizer("cl100k_base")).not.toBe(getTiktokenTokenizer("o200k_base"));
  expect(getTiktokenTokenizer("cl100k_base").count("antidisestablishmentarianism")).toBe(6); // cookbook figure
});

it("an unknown encoding is INVALID_ARGUMENT", () => {
  expect(() => getTiktokenTokenizer("p50k_base" as "o200k_base")).toThrowError(
    expect.objectContaining({ code: "INVALID_ARGUMENT", path: "encoding" }),
  );
});
