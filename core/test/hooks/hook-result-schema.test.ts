import { readFileSync } from "node:fs";
import AjvModule from "ajv";
import { describe, expect, it } from "vitest";
import { foldedHookResultSchema, hookResultSchema, validateAnyHookResult, validateHookResult } from "../../hooks/index.js";

/**
 * The zod validator the bus uses must say exactly what contracts/schemas/hook-result.schema.json
 * says (the file is emitted from contracts' hookResultSchema, which the bus checks with). One
 * fixture set goes through both.
 */
const jsonSchema = JSON.parse(readFileSync(new URL("../../../contracts/schemas/hook-result.schema.json", import.meta.url), "utf8"));
const ajv = new AjvModule.default({ strict: false });
const validateJson = ajv.compile(jsonSchema);

const valid: unknown[] = [
  { action: "continue" },
  { action: "deny", reason: "no" },
  { action: "modify", data: { a: 1 } },
  { action: "modify", data: "any JSON value is allowed by the schema" },
  { action: "inject_context", context_injection: "x", context_injection_role: "developer", ephemeral: true },
  { action: "ask_user", approval_prompt: "ok?", approval_options: ["allow", "deny"], approval_timeout: 0.5, approval_default: "allow" },
  { action: "continue", suppress_output: true, user_message: "hi", user_message_level: "warning" },
];

const invalid: unknown[] = [
  {},
  { action: "block" },
  { action: 1 },
  { action: "continue", extra: true },
  { action: "deny", reason: 42 },
  { action: "inject_context", context_injection_role: "tool" },
  { action: "continue", ephemeral: "yes" },
  { action: "continue", user_message_level: "debug" },
  { action: "ask_user", approval_options: "allow" },
  { action: "ask_user", approval_options: [1] },
  { action: "ask_user", approval_timeout: 0 },
  { action: "ask_user", approval_timeout: -1 },
  { action: "ask_user", approval_default: "maybe" },
];

describe("HookResult validation agrees with the JSON Schema", () => {
  it.each(valid.map((v) => [JSON.stringify(v), v]))("valid in both: %s", (_label, value) => {
    expect(validateJson(value)).toBe(true);
    expect(hookResultSchema.safeParse(value).success).toBe(true);
  });

  it.each(invalid.map((v) => [JSON.stringify(v), v]))("invalid in both: %s", (_label, value) => {
    expect(validateJson(value)).toBe(false);
    expect(hookResultSchema.safeParse(value).success).toBe(false);
  });

  it("the zod schema knows exactly the JSON Schema's fields", () => {
    expect(Object.keys(hookResultSchema.shape).sort()).toEqual(Object.keys(jsonSchema.properties).sort());
  });
});

describe("validateHookResult", () => {
  it("returns the very object it was given", () => {
    const result = { action: "modify" as const, data: { x: 1 } };
    expect(validateHookResult(result)).toBe(result);
  });

  it("adds two kernel rules beyond the schema: modify needs data, inject_context needs text", () => {
    expect(() => validateHookResult({ action: "modify" })).toThrow(expect.objectContaining({ code: "INVALID_HOOK_RESULT", path: "result.data" }));
    expect(() => validateHookResult({ action: "inject_context", context_injection: "" })).toThrow(
      expect.objectContaining({ code: "INVALID_HOOK_RESULT", path: "result.context_injection" }),
    );
  });

  it("names the hook, the event, the path, what was expected and what was given", () => {
    try {
      validateHookResult({ action: "ask_user", approval_timeout: -3 }, { hook: "guard", event: "tool:pre" });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_HOOK_RESULT", details: { hook: "guard", event: "tool:pre", path: "result.approval_timeout", given: -3 } });
      expect((error as Error).message).toContain('hook "guard"');
    }
  });

  it("rejects the folded-only fields on a handler's result, accepts them on a folded one", () => {
    const folded = { action: "inject_context", data: 1, injections: [{ content: "x", role: "system", ephemeral: false, hook: "h" }], userMessages: [], decidedBy: "h" };
    expect(() => validateHookResult(folded)).toThrow(expect.objectContaining({ code: "INVALID_HOOK_RESULT" }));
    expect(validateAnyHookResult(folded)).toBe(folded);
    expect(foldedHookResultSchema.safeParse({ ...folded, injections: [{ content: "", role: "system", ephemeral: false, hook: "h" }] }).success).toBe(false);
  });
});
