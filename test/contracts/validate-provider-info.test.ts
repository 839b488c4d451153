import { describe, expect, it } from "vitest";
import { isValidProviderInfo, validateProviderInfo } from "../../contracts/validators/index.js";

describe("validateProviderInfo", () => {
  it("returns the very object it was given, provider-specific keys included", () => {
    const info = { id: "local", endpoint: "http://localhost", defaults: { model: "m", context_window: 8192, temperature: 0 } };
    expect(validateProviderInfo(info)).toBe(info);
  });

  it("refuses a bad field with INVALID_PROVIDER_INFO naming path, expected and given", () => {
    expect(() => validateProviderInfo({ id: "x", defaults: { context_window: 0 } })).toThrowError(
      expect.objectContaining({ code: "INVALID_PROVIDER_INFO", path: "providerInfo.defaults.context_window", expected: "a number > 0", given: 0 }),
    );
    expect(() => validateProviderInfo({ id: "x", defaults: { max_output_tokens: 1.5 } })).toThrowError(
      expect.objectContaining({ path: "providerInfo.defaults.max_output_tokens", expected: "an integer", given: 1.5 }),
    );
    expect(() => validateProviderInfo({ display_name: "X" }, "provider.getInfo()")).toThrowError(
      expect.objectContaining({ path: "provider.getInfo().id", expected: "a string (required)", given: undefined }),
    );
  });

  it("isValidProviderInfo answers without throwing", () => {
    expect(isValidProviderInfo({ id: "openai" })).toBe(true);
    expect(isValidProviderInfo({ id: "" })).toBe(false);
    expect(isValidProviderInfo({ id: "x", defaults: [] })).toBe(false);
  });
});
