import { z } from "zod";
import type { AnyHookResult, HookHandlerResult } from "@amplifier-ts/contracts";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";

/**
 * Runtime validation of what handlers return, mirroring contracts/schemas/hook-result.schema.json
 * (the source of truth; test/hooks/hook-result-schema.test.ts runs one fixture set through both).
 * Unknown keys are errors, as `additionalProperties: false` says: a typo such as `contextInjection`
 * must not be silently ignored.
 */
const role = z.enum(["system", "developer", "user", "assistant"]);
const level = z.enum(["info", "warning", "error"]);

export const hookResultSchema = z.strictObject({
  action: z.enum(["continue", "deny", "modify", "inject_context", "ask_user"]),
  data: z.unknown().optional(),
  reason: z.string().optional(),
  context_injection: z.string().optional(),
  context_injection_role: role.optional(),
  ephemeral: z.boolean().optional(),
  suppress_output: z.boolean().optional(),
  user_message: z.string().optional(),
  user_message_level: level.optional(),
  approval_prompt: z.string().optional(),
  approval_options: z.array(z.string()).optional(),
  approval_timeout: z.number().gt(0).optional(),
  approval_default: z.enum(["allow", "deny"]).optional(),
});

/** A folded result (what emit returns) adds the collected lists; processHookResult accepts both. */
export const foldedHookResultSchema = hookResultSchema.extend({
  injections: z
    .array(z.strictObject({ content: z.string().min(1), role, ephemeral: z.boolean(), hook: z.string().min(1) }))
    .optional(),
  userMessages: z.array(z.strictObject({ message: z.string(), level, hook: z.string().min(1) })).optional(),
  decidedBy: z.string().optional(),
});

const FIELDS: readonly string[] = Object.keys(foldedHookResultSchema.shape);

interface Where {
  hook?: string;
  event?: string;
}

/**
 * A handler's return value as a HookResult, or INVALID_HOOK_RESULT naming the field.
 * Beyond the schema, two kernel rules: `modify` carries `data`, and `inject_context` carries a
 * non-empty `context_injection` — without them the action would be a silent no-op.
 */
export function validateHookResult(value: unknown, where: Where = {}): HookHandlerResult<unknown> {
  return check(hookResultSchema, value, where) as HookHandlerResult<unknown>;
}

/** Like validateHookResult, also accepting the fields a folded result adds. */
export function validateAnyHookResult(value: unknown, where: Where = {}): AnyHookResult {
  return check(foldedHookResultSchema, value, where) as AnyHookResult;
}

function check(schema: z.ZodType, value: unknown, where: Where): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(where, "result", "a HookResult object ({ action, … }) or undefined for continue", value);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0]!;
      const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      const hint = snake !== key && FIELDS.includes(snake) ? `did you mean "${snake}"?` : undefined;
      const given = (value as Record<string, unknown>)[key];
      throw invalid(where, `result.${key}`, `only HookResult fields (${FIELDS.join(", ")})`, given, hint);
    }
    const path = ["result", ...issue.path.map(String)].join(".");
    throw invalid(where, path, issue.message, valueAt(value, issue.path));
  }
  const result = value as AnyHookResult;
  if (result.action === "modify" && result.data === undefined) {
    throw invalid(where, "result.data", "the replacement event data, because action is modify", undefined);
  }
  if (result.action === "inject_context" && !result.context_injection && !result.injections?.length) {
    throw invalid(where, "result.context_injection", "a non-empty string, because action is inject_context", result.context_injection);
  }
  return value;
}

function invalid(where: Where, path: string, expected: string, given: unknown, hint?: string): AmplifierError {
  const details = { ...definedOnly(where), path, expected, given };
  return createError("INVALID_HOOK_RESULT", undefined, hint === undefined ? details : { ...details, hint });
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function definedOnly(where: Where): Where {
  const out: Where = {};
  if (where.hook !== undefined) out.hook = where.hook;
  if (where.event !== undefined) out.event = where.event;
  return out;
}
