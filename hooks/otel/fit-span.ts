import type { Attributes, Context, Tracer } from "@opentelemetry/api";
import { AMPLIFIER, GEN_AI, SESSION_ID, SPAN } from "./attributes.js";
import { warnNotTraced } from "./otel-api.js";
import { checkTracer } from "./tracer-check.js";

/**
 * What recordFitSpan reads of a fit report (`fitWindow(…, { report: true }).report`, or a
 * `createWindowFitter` call's): a structural slice of @amplifier-ts/window's FitReport, so this
 * package needs no dependency on the window engine (test/fit-span.test.ts passes the real one).
 */
export interface FitSpanReport {
  readonly format: string;
  readonly budget: number;
  readonly tokens: number;
  readonly toolTokens: number;
  readonly historyTokens: number;
  readonly given: number;
  readonly sent: number;
  readonly kept: number;
  readonly truncated: number;
  readonly dropped: number;
  readonly created: number;
  readonly compacted: boolean;
  readonly window: {
    readonly historyTokensExact: boolean;
    readonly cutReason: string;
    readonly ladder: string | undefined;
    readonly durationMs: number;
    readonly repaired: { readonly syntheticResults: number; readonly orphansDropped: number; readonly placeholder: boolean };
  };
}

export interface FitSpanOptions {
  /** `gen_ai.conversation.id` of the span. */
  conversationId?: string;
  /** The parent; default the active context (e.g. the framework's own step span, when its SDK traces). */
  parent?: Context;
}

/**
 * A fit of the standalone window fitter as a span — the same trace a session's hook bus gives,
 * for users of `fitWindow` / `createWindowFitter` inside another framework's loop. The span is
 * `amplifier.context.fit`, as long as the fit took, ending now:
 *
 * | attribute | from the report |
 * |---|---|
 * | `amplifier.context.budget` | budget |
 * | `amplifier.context.tokens_before`, `messages_before` | historyTokens (exact or estimated: `tokens_before_exact`), given (items in the caller's format) |
 * | `amplifier.context.tokens_after`, `messages_after` | tokens (messages + priming + tools, exact), sent |
 * | `amplifier.context.kept`, `truncated`, `removed`, `created` | the items kept as given, truncated, dropped, made (placeholder, interrupted results) |
 * | `amplifier.context.compacted`, `cut_reason`, `ladder`, `format`, `tool_tokens`, `duration_ms` | compacted, window.cutReason, window.ladder, format, toolTokens, window.durationMs |
 * | `amplifier.context.repaired.*` | window.repaired, when something was repaired |
 *
 * Never throws for the tracer's sake once it was accepted (OTEL/INVALID_TRACER for one that is
 * not a tracer): a failure to write is reported on OpenTelemetry's `diag.warn`.
 */
export function recordFitSpan(tracer: Tracer, report: FitSpanReport, options: FitSpanOptions = {}): void {
  const checked = checkTracer(tracer, "recordFitSpan(tracer)");
  const { window } = report;
  const attributes: Attributes = {
    ...(options.conversationId === undefined ? {} : { [GEN_AI.CONVERSATION_ID]: options.conversationId, [SESSION_ID]: options.conversationId }),
    [AMPLIFIER.CONTEXT_BUDGET]: report.budget,
    [AMPLIFIER.CONTEXT_TOKENS_BEFORE]: report.historyTokens,
    [AMPLIFIER.CONTEXT_TOKENS_BEFORE_EXACT]: window.historyTokensExact,
    [AMPLIFIER.CONTEXT_MESSAGES_BEFORE]: report.given,
    [AMPLIFIER.CONTEXT_TOKENS_AFTER]: report.tokens,
    [AMPLIFIER.CONTEXT_MESSAGES_AFTER]: report.sent,
    [AMPLIFIER.CONTEXT_KEPT]: report.kept,
    [AMPLIFIER.CONTEXT_TRUNCATED]: report.truncated,
    [AMPLIFIER.CONTEXT_REMOVED]: report.dropped,
    [AMPLIFIER.CONTEXT_CREATED]: report.created,
    [AMPLIFIER.CONTEXT_COMPACTED]: report.compacted,
    [AMPLIFIER.CONTEXT_CUT_REASON]: window.cutReason,
    ...(window.ladder === undefined ? {} : { [AMPLIFIER.CONTEXT_LADDER]: window.ladder }),
    [AMPLIFIER.CONTEXT_FORMAT]: report.format,
    [AMPLIFIER.CONTEXT_TOOL_TOKENS]: report.toolTokens,
    [AMPLIFIER.CONTEXT_DURATION_MS]: window.durationMs,
  };
  const { repaired } = window;
  if (repaired.syntheticResults > 0 || repaired.orphansDropped > 0 || repaired.placeholder) {
    attributes[AMPLIFIER.CONTEXT_REPAIRED_SYNTHETIC_RESULTS] = repaired.syntheticResults;
    attributes[AMPLIFIER.CONTEXT_REPAIRED_ORPHANS_DROPPED] = repaired.orphansDropped;
    attributes[AMPLIFIER.CONTEXT_REPAIRED_PLACEHOLDER] = repaired.placeholder;
  }
  const end = performance.now();
  const start = end - (Number.isFinite(window.durationMs) && window.durationMs > 0 ? window.durationMs : 0);
  try {
    checked.startSpan(SPAN.FIT, { attributes, startTime: start }, options.parent).end(end);
  } catch (error) {
    // A tracer that fails to write must not fail the caller's model call: the span is lost, and said so.
    warnNotTraced("a fit not traced", error);
  }
}
