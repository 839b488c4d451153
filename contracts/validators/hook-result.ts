import { z } from "zod";
import type { HookResult } from "../generated/hook-result.js";
import { assertValid } from "./validation-error.js";

/**
 * zod mirror of contracts/schemas/hook-result.schema.json (the source of truth): the fields and
 * their types only. Kernel rules on top of the schema (a `modify` carries `data`, an
 * `inject_context` a non-empty text) belong to the hook bus, which applies them when it folds.
 */
export const hookActionSchema = z.enum(["continue", "deny", "modify", "inject_context", "ask_user"]);

export const hookResultSchema = z.strictObject({
  action: hookActionSchema,
  /** Any JSON value: the schema gives `data` no type. */
  data: z.unknown().optional(),
  reason: z.string().optional(),
  context_injection: z.string().optional(),
  context_injection_role: z.enum(["system", "developer", "user", "assistant"]).optional(),
  ephemeral: z.boolean().optional(),
  suppress_output: z.boolean().optional(),
  user_message: z.string().optional(),
  user_message_level: z.enum(["info", "warning", "error"]).optional(),
  approval_prompt: z.string().optional(),
  approval_options: z.array(z.string()).optional(),
  approval_timeout: z.number().gt(0).optional(),
  approval_default: z.enum(["allow", "deny"]).optional(),
});

/**
 * `value` as a HookResult (the same object), or AmplifierError INVALID_HOOK_RESULT naming the
 * field (`hookResult.approval_timeout`), what was expected and what was given.
 */
export function validateHookResult(value: unknown, path = "hookResult"): HookResult {
  return assertValid(hookResultSchema, value, "INVALID_HOOK_RESULT", path) as HookResult;
}

/** Whether `value` is a HookResult; never throws. */
export function isValidHookResult(value: unknown): value is HookResult {
  return hookResultSchema.safeParse(value).success;
}
