/* eslint-disable */
/**
 * Generated from contracts/schemas/hook-result.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

export type HookAction = "continue" | "deny" | "modify" | "inject_context" | "ask_user";

/**
 * What a hook handler asks the kernel to do. Every field but action is optional.
 */
export interface HookResult {
  action: HookAction;
  /**
   * For modify: the replacement event data, passed to the next handler.
   */
  data?: unknown;
  /**
   * Why: required in spirit for deny, shown to the user or model.
   */
  reason?: string;
  /**
   * For inject_context: the text to add to the context.
   */
  context_injection?: string;
  /**
   * Role of the injected message; default system.
   */
  context_injection_role?: "system" | "developer" | "user" | "assistant";
  /**
   * For inject_context: use for the current request only, do not store.
   */
  ephemeral?: boolean;
  /**
   * Hide the hook's own output from the user.
   */
  suppress_output?: boolean;
  /**
   * A message to display to the user.
   */
  user_message?: string;
  user_message_level?: "info" | "warning" | "error";
  /**
   * For ask_user: the question to ask.
   */
  approval_prompt?: string;
  /**
   * For ask_user: the choices offered.
   */
  approval_options?: string[];
  /**
   * For ask_user: seconds to wait for an answer.
   */
  approval_timeout?: number;
  /**
   * For ask_user: the answer when the timeout passes.
   */
  approval_default?: "allow" | "deny";
}
