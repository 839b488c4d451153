import type { AmplifierEvents } from "@amplifier-ts/contracts";
import type { Attributes } from "@opentelemetry/api";
import { ERROR_TYPE } from "./attributes.js";

/**
 * The context and storage events that become span events (otel-hooks.ts says on which span).
 * One row per event: the span event's name and its attributes, the payload's fields in
 * `amplifier.<noun>.<field>` (snake case). `failure` is the `error.type` when the event reports
 * something that went wrong.
 *
 * | event | span event | attributes |
 * |---|---|---|
 * | context:include | amplifier.context.include | amplifier.include.source, ephemeral, role, hook, event, content_length (content with captureContent) |
 * | context:calibration | amplifier.context.calibration | amplifier.calibration.model, counted, raw, billed, drift, ratio, accepted, reason, previous_factor, factor, samples, applied |
 * | context:storage_fallback / degraded / restored / recovered | amplifier.context.storage_* | amplifier.storage.reason, store, path, skipped_lines, skipped_bytes, detail (JSON) |
 * | context:strategy_failed | amplifier.context.strategy_failed | amplifier.strategy.name, index, error; error.type |
 * | context:summary_failed | amplifier.context.summary_failed | amplifier.summary.strategy, summarizer, reason, dropped; error.type |
 * | context:orphan_tool_result | amplifier.context.orphan_tool_result | amplifier.orphan.role, id, call_ids, message_count |
 * | hook:error | amplifier.hook.error | amplifier.hook.name, event, fail_closed, error (its message); error.type (HOOK_FAILED, HOOK_TIMEOUT, INVALID_HOOK_RESULT) |
 * | provider:usage_invalid | amplifier.provider.usage_invalid | amplifier.usage_invalid.field, given (JSON), expected |
 */
type Row<K extends keyof AmplifierEvents> = (payload: AmplifierEvents[K], captureContent: boolean) => { attributes: Attributes; failure?: string };

const ROWS = {
  "context:include": (p, capture) => ({
    attributes: defined({
      "amplifier.include.source": p.source,
      "amplifier.include.ephemeral": p.ephemeral,
      "amplifier.include.role": p.role,
      "amplifier.include.hook": p.hook,
      "amplifier.include.event": p.event,
      "amplifier.include.content_length": typeof p.content === "string" ? p.content.length : undefined,
      "amplifier.include.content": capture ? p.content : undefined,
    }),
  }),
  "context:calibration": (p) => ({
    attributes: defined({
      "amplifier.calibration.model": p.model,
      "amplifier.calibration.counted": p.counted,
      "amplifier.calibration.raw": p.raw,
      "amplifier.calibration.billed": p.billed,
      "amplifier.calibration.drift": p.drift,
      "amplifier.calibration.ratio": p.ratio,
      "amplifier.calibration.accepted": p.accepted,
      "amplifier.calibration.reason": p.reason,
      "amplifier.calibration.previous_factor": p.previousFactor,
      "amplifier.calibration.factor": p.factor,
      "amplifier.calibration.samples": p.samples,
      "amplifier.calibration.applied": p.applied,
    }),
  }),
  "context:storage_fallback": (p) => ({ attributes: storage(p), failure: "storage_fallback" }),
  "context:storage_degraded": (p) => ({ attributes: storage(p), failure: "storage_degraded" }),
  "context:storage_restored": (p) => ({ attributes: storage(p) }),
  "context:storage_recovered": (p) => ({ attributes: storage(p) }),
  "context:strategy_failed": (p) => ({
    attributes: defined({ "amplifier.strategy.name": p.strategy, "amplifier.strategy.index": p.index, "amplifier.strategy.error": p.error, [ERROR_TYPE]: p.code ?? "STRATEGY_FAILED" }),
    failure: p.code ?? "STRATEGY_FAILED",
  }),
  "context:summary_failed": (p) => ({
    attributes: defined({ "amplifier.summary.strategy": p.strategy, "amplifier.summary.summarizer": p.summarizer, "amplifier.summary.reason": p.reason, "amplifier.summary.dropped": p.dropped, [ERROR_TYPE]: p.code ?? "SUMMARIZER_FAILED" }),
    failure: p.code ?? "SUMMARIZER_FAILED",
  }),
  "context:orphan_tool_result": (p) => ({
    attributes: defined({ "amplifier.orphan.role": p.role, "amplifier.orphan.id": p.id, "amplifier.orphan.call_ids": [...p.callIds], "amplifier.orphan.message_count": p.messageCount }),
  }),
  "hook:error": (p) => ({
    attributes: defined({ "amplifier.hook.name": p.hook, "amplifier.hook.event": p.event, "amplifier.hook.fail_closed": p.failClosed, "amplifier.hook.error": p.error?.message, [ERROR_TYPE]: errorCode(p.error) }),
    failure: errorCode(p.error),
  }),
  "provider:usage_invalid": (p) => ({
    attributes: defined({ "amplifier.usage_invalid.field": p.field, "amplifier.usage_invalid.given": jsonText(p.given), "amplifier.usage_invalid.expected": p.expected }),
  }),
} satisfies { [K in ContextEventName]: Row<K> };

export type ContextEventName =
  | "context:include"
  | "context:calibration"
  | "context:storage_fallback"
  | "context:storage_degraded"
  | "context:storage_restored"
  | "context:storage_recovered"
  | "context:strategy_failed"
  | "context:summary_failed"
  | "context:orphan_tool_result"
  | "hook:error"
  | "provider:usage_invalid";

export const CONTEXT_EVENTS = Object.keys(ROWS) as ContextEventName[];

/** The span event for one of CONTEXT_EVENTS: `amplifier.context.include` for context:include, `amplifier.provider.usage_invalid` for provider:usage_invalid. */
export function contextEventAttributes(event: ContextEventName, payload: unknown, captureContent: boolean): { name: string; attributes: Attributes; failure?: string } {
  const row = ROWS[event] as Row<ContextEventName>;
  return { name: `amplifier.${event.replace(":", ".")}`, ...row(payload as never, captureContent) };
}

function storage(p: { reason?: string; store?: string; storagePath?: string; skippedLines?: number; skippedBytes?: number; detail?: Record<string, unknown> }): Attributes {
  return defined({
    "amplifier.storage.reason": p.reason,
    "amplifier.storage.store": p.store,
    "amplifier.storage.path": p.storagePath,
    "amplifier.storage.skipped_lines": p.skippedLines,
    "amplifier.storage.skipped_bytes": p.skippedBytes,
    "amplifier.storage.detail": p.detail === undefined ? undefined : jsonText(p.detail),
  });
}

/** The attributes whose value is set (OpenTelemetry drops undefined values with a warning). */
function defined(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** An error's stable code, else its class name. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && code !== "") return code;
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" ? name : "_OTHER";
}
