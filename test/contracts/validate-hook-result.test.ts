import { describe, expect, it } from "vitest";
import { isValidHookResult, validateHookResult } from "../../contracts/validators/index.js";

/** The schema-only check of a HookResult; the hook bus adds its own rules on top (core/hooks). */
describe("validateHookResult", () => {
  it("returns the very object it was given", () => {
    const result = { action: "modify", data: ["any", "JSON"] };
    expect(validateHookResult(result)).toBe(result);
  });

  it("refuses a bad field with INVALID_HOOK_RESULT naming path, expected and given", () => {
    expect(() => validateHookResult({ action: "ask_user", approval_timeout: 0 })).toThrowError(
      expect.objectContaining({ code: "INVALID_HOOK_RESULT", path: "hookResult.approval_timeout", expected: "a number > 0", given: 0 }),
    );
    expect(() => validateHookResult({ action: "block" })).toThrowError(
      expect.objectContaining({ path: "hookResult.action", expected: 'one of "continue", "deny", "modify", "inject_context", "ask_user"', given: "block" }),
    );
    expect(() => validateHookResult({ action: "ask_user", approval_options: ["a", 2] })).toThrowError(
      expect.objectContaining({ path: "hookResult.approval_options[1]", expected: "a string", given: 2 }),
    );
  });

  it("an unknown key gets a did-you-mean for its snake_case twin", () => {
    expect(() => validateHookResult({ action: "inject_context", contextInjection: "x" }, "result")).toThrowError(
      expect.objectContaining({ path: "result.contextInjection", details: expect.objectContaining({ hint: 'did you mean "context_injection"?' }) }),
    );
  });

  it("leaves the bus's rules to the bus: modify without data and inject_context without text are schema-valid", () => {
    expect(isValidHookResult({ action: "modify" })).toBe(true);
    expect(isValidHookResult({ action: "inject_context" })).toBe(true);
  });

  it("isValidHookResult answers without throwing", () => {
    expect(isValidHookResult({ action: "continue" })).toBe(true);
    expect(isValidHookResult(undefined)).toBe(false);
  });
});
