import { z } from "zod";
import type { HookRegistrationOptions } from "@amplifier-ts/contracts";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";

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

function parse<T>(schema: z.ZodObject & z.ZodType<T>, value: unknown, where: { event?: string; what: string }): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data as T;
  const issue = result.error.issues[0]!;
  const unknownKey = issue.code === "unrecognized_keys";
  const key = unknownKey ? issue.keys[0]! : issue.path.map(String).join(".");
  const given = key && typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : value;
  throw createError("INVALID_ARGUMENT", `invalid ${where.what}`, {
    ...(where.event ? { event: where.event } : {}),
    path: key ? `options.${key}` : "options",
    expected: unknownKey ? `only ${Object.keys(schema.shape).join(", ")}` : issue.message,
    given,
  });
}
