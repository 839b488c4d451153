import { z } from "zod";
import type { HookResult } from "../generated/hook-result.js";
import { assertValid } from "./validation-error.js";

/**
 * HookResult's schema — the source of truth of contracts/schemas/hook-result.schema.json and the
 * generated HookResult type: the fields and their types only. Kernel rules on top of the schema
 * (a `modify` carries `data`, an `inject_context` a non-empty text) belong to the hook bus, which
 * applies them when it folds.
 */
export const hookActionSchema = z.enum(["continue", "deny", "modify", "inject_context", "ask_user"]).meta({ id: "HookAction" });

export const hookResultSchema = z
  .strictObject({
    action: hookActionSchema,
    /** Any JSON value: the schema gives `data` no type. */
    data: z.unknown().optional().meta({ description: "For modify: the replacement event data, passed to the next handler." }),
    reason: z.string().optional().meta({ description: "Why: required in spirit for deny, shown to the user or model." }),
    context_injection: z.string().optional().meta({ description: "For inject_context: the text to add to the context." }),
    context_injection_role: z.enum(["system", "developer", "user", "assistant"]).optional().meta({ description: "Role of the injected message; default system." }),
    ephemeral: z.boolean().optional().meta({ description: "For inject_context: use for the current request only, do not store." }),
    suppress_output: z.boolean().optional().meta({ description: "Hide the hook's own output from the user." }),
    user_message: z.string().optional().meta({ description: "A message to display to the user." }),
    user_message_level: z.enum(["info", "warning", "error"]).optional(),
    approval_prompt: z.string().optional().meta({ description: "For ask_user: the question to ask." }),
    approval_options: z.array(z.string()).optional().meta({ description: "For ask_user: the choices offered." }),
    approval_timeout: z.number().gt(0).optional().meta({ description: "For ask_user: seconds to wait for an answer." }),
    approval_default: z.enum(["allow", "deny"]).optional().meta({ description: "For ask_user: the answer when the timeout passes." }),
  })
  .meta({ title: "HookResult", description: "What a hook handler asks the kernel to do. Every field but action is optional." });

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
