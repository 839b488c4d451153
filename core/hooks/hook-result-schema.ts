import { z } from "zod";
import type { AnyHookResult, HookHandlerResult } from "@amplifier-ts/contracts";
import { assertValid, createError, type AmplifierError, type ErrorDetails } from "@amplifier-ts/contracts";
import { hookResultSchema } from "@amplifier-ts/contracts/validators";

/**
 * What handlers return, checked against the one HookResult schema (contracts' hookResultSchema,
 * from which contracts/schemas/hook-result.schema.json is emitted) plus the bus's own rules.
 * Unknown keys are errors: a typo such as `contextInjection` must not be silently ignored.
 */
export { hookResultSchema };

const role = hookResultSchema.shape.context_injection_role.unwrap();
const level = hookResultSchema.shape.user_message_level.unwrap();

/** A folded result (what emit returns) adds the collected lists; processHookResult accepts both. */
export const foldedHookResultSchema = hookResultSchema.extend({
  injections: z
    .array(z.strictObject({ content: z.string().min(1), role, ephemeral: z.boolean(), hook: z.string().min(1) }))
    .optional(),
  userMessages: z.array(z.strictObject({ message: z.string(), level, hook: z.string().min(1) })).optional(),
  decidedBy: z.string().optional(),
});

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
  assertValid(schema, value, "INVALID_HOOK_RESULT", "result", definedOnly(where));
  const result = value as AnyHookResult;
  if (result.action === "modify" && result.data === undefined) {
    throw invalid(where, "result.data", "the replacement event data, because action is modify", undefined);
  }
  if (result.action === "inject_context" && !result.context_injection && !result.injections?.length) {
    throw invalid(where, "result.context_injection", "a non-empty string, because action is inject_context", result.context_injection);
  }
  return value;
}

function invalid(where: Where, path: string, expected: string, given: unknown): AmplifierError {
  return createError("INVALID_HOOK_RESULT", undefined, { ...definedOnly(where), path, expected, given });
}

function definedOnly(where: Where): ErrorDetails {
  const out: ErrorDetails = {};
  if (where.hook !== undefined) out.hook = where.hook;
  if (where.event !== undefined) out.event = where.event;
  return out;
}
