import { z } from "zod";
import type { HookRegistrationOptions } from "@amplifier-ts/contracts";
import { parseValid, type AmplifierError } from "@amplifier-ts/contracts";

/** Default handler timeout: long enough for a network-bound hook, short enough to notice a hang. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

export interface HookBusOptions {
  /** Default timeout of every handler, in ms (30 000). `Infinity` disables it. */
  timeoutMs?: number;
  /**
   * Where failures go that no `hook:error` handler can be told about: a `hook:error` handler or
   * observer that itself fails. Default: `console.warn`, so they are never silent.
   */
  onUnreportedError?: (error: AmplifierError) => void;
}

const timeoutMs = z.number().gt(0, "a timeout in ms greater than 0 (Infinity disables it)");

const registrationSchema = z.strictObject({
  priority: z.number().finite("a finite number (lower runs first)").optional(),
  name: z.string().min(1, "a non-empty string").optional(),
  failClosed: z.boolean().optional(),
  timeoutMs: timeoutMs.optional(),
});

const busSchema = z.strictObject({
  timeoutMs: timeoutMs.optional(),
  onUnreportedError: z.custom<(error: AmplifierError) => void>((v) => typeof v === "function", "a function").optional(),
});

export function parseRegistrationOptions(options: unknown, event: string): HookRegistrationOptions {
  return parse(registrationSchema, options, { event, what: "register() options" });
}

export function parseBusOptions(options: unknown): Required<HookBusOptions> {
  const parsed = parse(busSchema, options, { what: "HookBus options" });
  return {
    timeoutMs: parsed.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    onUnreportedError: parsed.onUnreportedError ?? ((error) => console.warn(error)),
  };
}

/** Options as parsed, or INVALID_ARGUMENT through the one translator (path `options.<key>`, did-you-mean). */
function parse<T>(schema: z.ZodType<T>, value: unknown, where: { event?: string; what: string }): T {
  return parseValid(schema, value ?? {}, { code: "INVALID_ARGUMENT", path: "options", details: where.event ? { event: where.event } : {} });
}
