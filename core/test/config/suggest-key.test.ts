import { describe, expect, it } from "vitest";
import { didYouMean, editDistance, suggestKey } from "../../config/suggest-key.js";

describe("suggestKey", () => {
  const keys = ["maxTokens", "safetyMargin", "compactThreshold", "model"];

  it("maps snake_case, kebab-case and other casings onto the camelCase key", () => {
    expect(suggestKey("max_tokens", keys)).toBe("maxTokens");
    expect(suggestKey("safety-margin", keys)).toBe("safetyMargin");
    expect(suggestKey("MODEL", keys)).toBe("model");
  });

  it("suggests the closest key for a typo", () => {
    expect(suggestKey("maxToken", keys)).toBe("maxTokens");
    expect(suggestKey("compactTreshold", keys)).toBe("compactThreshold");
    expect(suggestKey("modle", keys)).toBe("model");
  });

  it("suggests nothing when no key is plausibly meant", () => {
    expect(suggestKey("retries", keys)).toBeUndefined();
    expect(suggestKey("x", keys)).toBeUndefined();
    expect(suggestKey("anything", [])).toBeUndefined();
  });

  it("words the hint for error details", () => {
    expect(didYouMean("max_tokens", keys)).toBe('did you mean "maxTokens"?');
    expect(didYouMean("retries", keys)).toBeUndefined();
  });

  it("an alias (a key's other name, from its schema's metadata) suggests the key it stands for, typos included; a real key's own match comes first", () => {
    const aliases = new Map([["max_tokens", "maxOutputTokens"], ["max_completion_tokens", "maxOutputTokens"]]);
    expect(didYouMean("max_tokens", ["model", "maxOutputTokens"], aliases)).toBe('did you mean "maxOutputTokens"?');
    expect(didYouMean("max_completion_token", ["model", "maxOutputTokens"], aliases)).toBe('did you mean "maxOutputTokens"?');
    expect(didYouMean("max_tokens", ["maxTokens", "maxOutputTokens"], aliases)).toBe('did you mean "maxTokens"?');
    expect(didYouMean("retries", ["model", "maxOutputTokens"], aliases)).toBeUndefined();
  });
});

describe("editDistance", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("flaw", "lawn")).toBe(2);
  });

  it("counts a swap of two neighbouring letters as one edit", () => {
    expect(editDistance("modle", "model")).toBe(1);
    expect(editDistance("ab", "ba")).toBe(1);
  });
});
