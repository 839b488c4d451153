import type { HookHandler } from "@amplifier-ts/contracts";
import type { HookHandlerResult } from "@amplifier-ts/contracts";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";
import { validateHookResult } from "./hook-result-schema.js";

/** A registered handler, as the bus keeps it. */
export interface HandlerEntry {
  readonly event: string;
  readonly handler: HookHandler<unknown, string>;
  readonly name: string;
  readonly priority: number;
  readonly failClosed: boolean;
  readonly timeoutMs: number;
  /** A standard notification (EVENT_KINDS): only nothing or `continue` is a valid answer. */
  readonly notification: boolean;
  /** Registration order, the tie-breaker between equal priorities. */
  readonly seq: number;
}

export type HandlerOutcome =
  | { ok: true; result: HookHandlerResult<unknown> | undefined }
  | { ok: false; error: AmplifierError };

/** setTimeout fires at once for delays above this; such timeouts are treated as "no timeout". */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Call one handler and turn whatever happens into an outcome; never throws.
 *
 * - returned undefined → continue; returned a value → validated (INVALID_HOOK_RESULT if not a HookResult,
 *   or if a notification's handler answered anything but continue)
 * - threw or rejected → HOOK_FAILED, the original error kept as `cause`
 * - still pending after `timeoutMs` → HOOK_TIMEOUT, and the handler's `signal` is aborted so it can
 *   stop; whatever it settles to later is ignored.
 */
export async function runHandler(entry: HandlerEntry, data: unknown): Promise<HandlerOutcome> {
  const where = { hook: entry.name, event: entry.event };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timeoutError: AmplifierError | undefined;
  let value: unknown;
  try {
    value = entry.handler(data, { event: entry.event, hook: entry.name, signal: controller.signal });
    if (isThenable(value)) {
      const timedOut = new Promise<never>((_, reject) => {
        if (entry.timeoutMs > MAX_TIMER_MS) return;
        timer = setTimeout(() => {
          timeoutError = createError("HOOK_TIMEOUT", `hook "${entry.name}" did not settle within ${entry.timeoutMs} ms`, {
            ...where,
            timeoutMs: entry.timeoutMs,
            hint: "raise the handler's timeoutMs, or make it honour context.signal",
          });
          controller.abort(timeoutError);
          reject(timeoutError);
        }, entry.timeoutMs);
      });
      value = await Promise.race([value, timedOut]);
    }
  } catch (error) {
    if (timeoutError !== undefined && error === timeoutError) return { ok: false, error: timeoutError };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: createError("HOOK_FAILED", `hook "${entry.name}" threw: ${message}`, { ...where, cause: error }) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  if (value === undefined) return { ok: true, result: undefined };
  let result: HookHandlerResult<unknown>;
  try {
    result = validateHookResult(value, where);
  } catch (error) {
    return { ok: false, error: error as AmplifierError };
  }
  if (entry.notification && result.action !== "continue") {
    return {
      ok: false,
      error: createError("INVALID_HOOK_RESULT", `hook "${entry.name}" answered ${result.action} to the notification ${entry.event}, which handlers may only observe`, {
        ...where,
        field: "action",
        expected: 'nothing, or { action: "continue" }',
        given: result.action,
        hint: "a notification reports what already happened; steer on the decision event before it (e.g. tool:pre, prompt:submit, provider:request)",
      }),
    };
  }
  return { ok: true, result };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}
