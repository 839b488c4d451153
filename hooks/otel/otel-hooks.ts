import type { AmplifierEvents, HookBusContract, Unregister } from "@amplifier-ts/contracts";
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { AMPLIFIER, ERROR_TYPE, GEN_AI, GEN_AI_OPERATION, PROVIDER_NAMES, SESSION_ID, SPAN } from "./attributes.js";
import { checkTracer, OTEL_MODULE_VERSION, TRACER_NAME } from "./tracer-check.js";
import { requireOtelApi, type OtelApi } from "./otel-api.js";
import { contextEventAttributes, CONTEXT_EVENTS, type ContextEventName } from "./context-events.js";
import { genAiMessages, genAiOutput } from "./genai-messages.js";

export interface OtelHooksOptions {
  /** The tracer to write to. Default: the global API's, `trace.getTracer(tracerName)` (whatever the SDK registered). */
  tracer?: Tracer;
  /** Name of the global tracer when no `tracer` is given. Default "@amplifier-ts/module-otel". */
  tracerName?: string;
  /** `gen_ai.conversation.id` on every span: the session's id (a function is read at each span). */
  conversationId?: string | (() => string | undefined);
  /** `gen_ai.agent.name` of the turn spans (`invoke_agent {agentName}`). */
  agentName?: string;
  /** A span from session:start to session:end, parent of the turns. Default false: each turn is a trace of its own, tied to the others by gen_ai.conversation.id (how Langfuse and Phoenix group sessions). */
  sessionSpan?: boolean;
  /** Record prompts, answers, tool arguments and results and included content (may be sensitive). Default false. */
  captureContent?: boolean;
  /** How many spans of one kind (calls, tools, turns) may be open at once; past it the oldest is ended, marked abandoned. Default 64. */
  maxOpenSpans?: number;
}

/**
 * Writes a hook bus's events as OpenTelemetry spans; returns the teardown (unregisters, ends
 * what is still open, marked `amplifier.span.abandoned`).
 *
 * | events | span (kind) | parent |
 * |---|---|---|
 * | session:start → session:end (with `sessionSpan`) | `amplifier.session` (internal) | the active context |
 * | prompt:submit → prompt:complete | `invoke_agent [{agentName}]` (internal) | the session span, else the active context |
 * | provider:request → provider:response / provider:error | `chat {model}` (client) | the open turn, else as above |
 * | tool:pre → tool:post / tool:error | `execute_tool {tool}` (internal) | the open turn |
 * | context:pre_compact + context:post_compact | `amplifier.context.compact` (internal), its duration the compaction's | the open turn |
 * | execution:end / orchestrator:complete with status failed or cancelled | ends the open turn (`amplifier.turn.status`; failed: status error, error.type `turn_failed`) | |
 * | context:spend (a bill the context recorded) | attributes of the call it bills (`amplifier.usage.*`), and the session's totals on the open turn and the session span (`amplifier.session.usage.*`) | |
 * | context:include, calibration, storage_*, strategy_failed, summary_failed, orphan_tool_result, hook:error, provider:usage_invalid | a span event | the open call (calibration: the call it settles), else the turn, else the session; with none open, a span of its own |
 *
 * Observers (`hooks.on`), never handlers: a tracer cannot steer the session, sees each event
 * when it is emitted (before any handler runs) and costs the bus no await. Nothing here throws
 * into the bus: a failure is reported on the OpenTelemetry diagnostic logger (`diag.warn`).
 * Memory is bounded by the spans open at once (`maxOpenSpans` per kind), not by the session's length.
 *
 * Calls pair in order: a provider:response or provider:error ends the oldest open call of the
 * same provider (one at a time per provider in an orchestrator loop; concurrent calls on one bus
 * may pair out of order). A call's span ends once the response's own handlers ran (the context
 * manager's calibration is recorded on it), with the response's time as its end.
 */
export function otelHooks(hooks: HookBusContract<AmplifierEvents>, options: OtelHooksOptions = {}): Unregister {
  const api = requireOtelApi("otelHooks()");
  const tracer = options.tracer === undefined ? api.trace.getTracer(options.tracerName ?? TRACER_NAME, OTEL_MODULE_VERSION) : checkTracer(options.tracer, "otelHooks(hooks, { tracer })");
  return new BusTracer(api, tracer, options).attach(hooks);
}

interface OpenCall {
  readonly provider: string;
  readonly span: Span;
}

class BusTracer {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #options: OtelHooksOptions;
  readonly #limit: number;
  #session: Span | undefined;
  readonly #turns: { key: string; span: Span }[] = [];
  readonly #calls: OpenCall[] = [];
  readonly #tools = new Map<string, Span>();
  /** The last call answered, still open until the response's handlers ran (its calibration); `end` is the response's time. */
  #answered: { span: Span; end: number } | undefined;
  #preCompact: AmplifierEvents["context:pre_compact"] | undefined;

  constructor(api: OtelApi, tracer: Tracer, options: OtelHooksOptions) {
    this.#api = api;
    this.#tracer = tracer;
    this.#options = options;
    this.#limit = options.maxOpenSpans ?? 64;
  }

  attach(hooks: HookBusContract<AmplifierEvents>): Unregister {
    const observe = <K extends keyof AmplifierEvents & string>(event: K, observer: (payload: AmplifierEvents[K]) => void): Unregister =>
      hooks.on(event, (payload) => {
        try {
          observer(payload);
        } catch (error) {
          this.#api.diag.warn(`@amplifier-ts/module-otel: ${event} not traced`, error);
        }
      });
    const unregisters = [
      observe("session:start", (p) => this.#sessionStart(p)),
      observe("session:end", (p) => this.#sessionEnd(p)),
      observe("prompt:submit", (p) => this.#turnStart(p)),
      observe("prompt:complete", (p) => this.#turnEnd(p)),
      observe("execution:end", (p) => this.#turnStopped(p?.status, p?.runId)),
      observe("orchestrator:complete", (p) => this.#turnStopped(p.status, undefined)),
      observe("provider:request", (p) => this.#callStart(p)),
      observe("provider:response", (p) => this.#callAnswered(p)),
      observe("provider:error", (p) => this.#callFailed(p)),
      observe("tool:pre", (p) => this.#toolStart(p)),
      observe("tool:post", (p) => this.#toolEnd(p.callId, p.result.isError === true ? { type: "tool_error", message: "the tool reported an error" } : undefined, p.result)),
      observe("tool:error", (p) => this.#toolEnd(p.callId, { type: errorType(p.error), message: p.error.message, error: p.error })),
      observe("context:pre_compact", (p) => void (this.#preCompact = p)),
      observe("context:post_compact", (p) => this.#compaction(p)),
      observe("context:spend", (p) => this.#spend(p)),
      ...CONTEXT_EVENTS.map((event) => observe(event, (p) => this.#contextEvent(event, p))),
    ];
    return () => {
      for (const unregister of unregisters) unregister();
      this.#endAll();
    };
  }

  // --- spans with a beginning and an end --------------------------------------------------

  #sessionStart(p: AmplifierEvents["session:start"]): void {
    if (this.#options.sessionSpan !== true) return;
    if (this.#session) abandon(this.#session);
    this.#session = this.#tracer.startSpan(SPAN.SESSION, { kind: this.#api.SpanKind.INTERNAL, attributes: { [GEN_AI.CONVERSATION_ID]: this.#conversationId() ?? p.sessionId, [SESSION_ID]: this.#conversationId() ?? p.sessionId } }, this.#api.context.active());
  }

  #sessionEnd(p: AmplifierEvents["session:end"]): void {
    const span = this.#session;
    if (span === undefined) return;
    this.#session = undefined;
    if (p.status === "failed") this.#fail(span, p.error ? errorType(p.error) : "session_failed", p.error?.message ?? "the session failed", p.error);
    span.end();
  }

  #turnStart(p: AmplifierEvents["prompt:submit"]): void {
    const key = p.runId ?? "";
    const open = this.#turns.findIndex((t) => t.key === key);
    if (open >= 0) abandon(this.#turns.splice(open, 1)[0]!.span);
    const agent = this.#options.agentName;
    const span = this.#tracer.startSpan(
      agent ? `${GEN_AI_OPERATION.INVOKE_AGENT} ${agent}` : GEN_AI_OPERATION.INVOKE_AGENT,
      {
        kind: this.#api.SpanKind.INTERNAL,
        attributes: this.#common({
          [GEN_AI.OPERATION_NAME]: GEN_AI_OPERATION.INVOKE_AGENT,
          ...(agent ? { [GEN_AI.AGENT_NAME]: agent } : {}),
          ...(this.#options.captureContent ? { [GEN_AI.INPUT_MESSAGES]: JSON.stringify([{ role: "user", parts: [{ type: "text", content: p.prompt }] }]) } : {}),
        }),
      },
      this.#sessionContext(),
    );
    this.#turns.push({ key, span });
    if (this.#turns.length > this.#limit) abandon(this.#turns.shift()!.span);
  }

  #turnEnd(p: AmplifierEvents["prompt:complete"]): void {
    const key = p.runId ?? "";
    const index = findLastIndex(this.#turns, (t) => t.key === key);
    if (index < 0) return;
    const { span } = this.#turns.splice(index, 1)[0]!;
    if (this.#options.captureContent) span.setAttribute(GEN_AI.OUTPUT_MESSAGES, JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: p.response }], finish_reason: "stop" }]));
    span.end();
  }

  /** A loop that failed or was cancelled never completes its prompt: the turn ends here, a failure with status error. */
  #turnStopped(status: "completed" | "cancelled" | "failed" | undefined, runId: string | undefined): void {
    if (status !== "failed" && status !== "cancelled") return;
    const index = runId === undefined ? this.#turns.length - 1 : findLastIndex(this.#turns, (t) => t.key === runId);
    if (index < 0) return;
    const { span } = this.#turns.splice(index, 1)[0]!;
    span.setAttribute(AMPLIFIER.TURN_STATUS, status);
    if (status === "failed") this.#fail(span, "turn_failed", "the orchestrator reported the turn failed");
    span.end();
  }

  #callStart(p: AmplifierEvents["provider:request"]): void {
    this.#flushAnswered();
    const request = p;
    const attributes: Attributes = this.#common({
      [GEN_AI.OPERATION_NAME]: GEN_AI_OPERATION.CHAT,
      [GEN_AI.PROVIDER_NAME]: PROVIDER_NAMES[p.provider] ?? p.provider,
      [AMPLIFIER.PROVIDER_API]: p.provider,
      [AMPLIFIER.REQUEST_MESSAGES]: Array.isArray(p.messages) ? p.messages.length : 0,
      [AMPLIFIER.REQUEST_TOOLS]: Array.isArray(p.tools) ? p.tools.length : 0,
    });
    if (p.model !== undefined) attributes[GEN_AI.REQUEST_MODEL] = p.model;
    if (typeof request.maxOutputTokens === "number") attributes[GEN_AI.REQUEST_MAX_TOKENS] = request.maxOutputTokens;
    if (typeof request.stream === "boolean") attributes[GEN_AI.REQUEST_STREAM] = request.stream;
    if (typeof p.tokens === "number") attributes[AMPLIFIER.REQUEST_TOKENS] = p.tokens;
    if (this.#options.captureContent && Array.isArray(p.messages)) attributes[GEN_AI.INPUT_MESSAGES] = json(genAiMessages(p.messages));
    const name = p.model === undefined ? GEN_AI_OPERATION.CHAT : `${GEN_AI_OPERATION.CHAT} ${p.model}`;
    const span = this.#tracer.startSpan(name, { kind: this.#api.SpanKind.CLIENT, attributes }, this.#turnContext());
    this.#calls.push({ provider: p.provider, span });
    if (this.#calls.length > this.#limit) abandon(this.#calls.shift()!.span);
  }

  #callAnswered(p: AmplifierEvents["provider:response"]): void {
    const span = this.#takeCall(p.provider);
    if (span === undefined) return;
    const attributes: Attributes = {};
    if (p.model !== undefined) attributes[GEN_AI.RESPONSE_MODEL] = p.model;
    if (p.stopReason !== undefined) attributes[GEN_AI.RESPONSE_FINISH_REASONS] = [p.stopReason];
    const usage = p.usage;
    if (usage?.inputTokens !== undefined) attributes[GEN_AI.USAGE_INPUT_TOKENS] = usage.inputTokens;
    if (usage?.outputTokens !== undefined) attributes[GEN_AI.USAGE_OUTPUT_TOKENS] = usage.outputTokens;
    if (usage?.cacheReadTokens !== undefined) attributes[GEN_AI.USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheReadTokens;
    if (usage?.cacheWriteTokens !== undefined) attributes[GEN_AI.USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheWriteTokens;
    if (this.#options.captureContent && p.message !== undefined) attributes[GEN_AI.OUTPUT_MESSAGES] = json(genAiOutput(p.message, p.stopReason));
    span.setAttributes(attributes);
    // Ended after this response's handlers (the calibration they emit lands on it), at this time.
    this.#flushAnswered();
    const answered = { span, end: now() };
    this.#answered = answered;
    setImmediate(() => {
      if (this.#answered === answered) this.#flushAnswered();
    });
  }

  #callFailed(p: AmplifierEvents["provider:error"]): void {
    const span = this.#takeCall(p.provider);
    if (span === undefined) return;
    if (p.retryable !== undefined) span.setAttribute(AMPLIFIER.ERROR_RETRYABLE, p.retryable);
    this.#fail(span, errorType(p.error), p.error.message, p.error);
    span.end();
  }

  #toolStart(p: AmplifierEvents["tool:pre"]): void {
    const open = this.#tools.get(p.callId);
    if (open) abandon(open);
    const attributes: Attributes = this.#common({
      [GEN_AI.OPERATION_NAME]: GEN_AI_OPERATION.EXECUTE_TOOL,
      [GEN_AI.TOOL_NAME]: p.tool,
      [GEN_AI.TOOL_CALL_ID]: p.callId,
      [GEN_AI.TOOL_TYPE]: "function",
    });
    if (this.#options.captureContent) attributes[GEN_AI.TOOL_CALL_ARGUMENTS] = json(p.input);
    this.#tools.delete(p.callId);
    this.#tools.set(p.callId, this.#tracer.startSpan(`${GEN_AI_OPERATION.EXECUTE_TOOL} ${p.tool}`, { kind: this.#api.SpanKind.INTERNAL, attributes }, this.#turnContext()));
    if (this.#tools.size > this.#limit) {
      const [oldest, span] = this.#tools.entries().next().value as [string, Span];
      this.#tools.delete(oldest);
      abandon(span);
    }
  }

  #toolEnd(callId: string, failure: { type: string; message: string; error?: Error } | undefined, result?: unknown): void {
    const span = this.#tools.get(callId);
    if (span === undefined) return;
    this.#tools.delete(callId);
    if (result !== undefined && this.#options.captureContent) span.setAttribute(GEN_AI.TOOL_CALL_RESULT, json(result));
    if (failure) this.#fail(span, failure.type, failure.message, failure.error);
    span.end();
  }

  /** The compaction, as a span of the duration it took, ending now (post_compact is emitted when it is done). */
  #compaction(post: AmplifierEvents["context:post_compact"]): void {
    const pre = this.#preCompact;
    this.#preCompact = undefined;
    const attributes: Attributes = this.#common({
      ...(pre ? { [AMPLIFIER.CONTEXT_BUDGET]: pre.budget, [AMPLIFIER.CONTEXT_TOKENS_BEFORE]: pre.tokens, [AMPLIFIER.CONTEXT_MESSAGES_BEFORE]: pre.messageCount } : {}),
      [AMPLIFIER.CONTEXT_MESSAGES_AFTER]: post.messageCount,
      [AMPLIFIER.CONTEXT_TOKENS_AFTER]: post.tokens,
      [AMPLIFIER.CONTEXT_REMOVED]: post.removed,
      [AMPLIFIER.CONTEXT_TRUNCATED]: post.truncated,
      [AMPLIFIER.CONTEXT_SUMMARIZED]: post.summarized,
      [AMPLIFIER.CONTEXT_STRATEGIES]: [...post.strategies],
      [AMPLIFIER.CONTEXT_DURATION_MS]: post.durationMs,
    });
    const repaired = post.repaired;
    if (repaired && (repaired.syntheticResults > 0 || repaired.orphansDropped > 0 || repaired.placeholder)) {
      attributes[AMPLIFIER.CONTEXT_REPAIRED_SYNTHETIC_RESULTS] = repaired.syntheticResults;
      attributes[AMPLIFIER.CONTEXT_REPAIRED_ORPHANS_DROPPED] = repaired.orphansDropped;
      attributes[AMPLIFIER.CONTEXT_REPAIRED_PLACEHOLDER] = repaired.placeholder;
    }
    const decision = post.decision;
    if (decision) {
      Object.assign(attributes, {
        [AMPLIFIER.COMPACTION_POLICY]: decision.policy,
        [AMPLIFIER.COMPACTION_COMPACT]: decision.compact,
        [AMPLIFIER.COMPACTION_FORCED]: decision.forced === true,
        [AMPLIFIER.COMPACTION_HORIZON_TURNS]: decision.horizonTurns,
        [AMPLIFIER.COMPACTION_WINDOW_TOKENS]: decision.windowTokens,
        [AMPLIFIER.COMPACTION_TARGET_TOKENS]: decision.targetTokens,
        [AMPLIFIER.COMPACTION_GROWTH_PER_TURN]: decision.growthPerTurn,
        [AMPLIFIER.COMPACTION_REASON]: decision.reason,
        ...(decision.now ? { [AMPLIFIER.COMPACTION_NOW_COST_USD]: decision.now.totalUsd } : {}),
        ...(decision.defer ? { [AMPLIFIER.COMPACTION_DEFER_COST_USD]: decision.defer.totalUsd } : {}),
      });
    }
    const end = now();
    const start = end - (Number.isFinite(post.durationMs) && post.durationMs > 0 ? post.durationMs : 0);
    this.#tracer.startSpan(SPAN.COMPACT, { kind: this.#api.SpanKind.INTERNAL, attributes, startTime: start }, this.#turnContext()).end(end);
  }

  /** A bill the context recorded: its parts on the call it bills, the session's totals on the turn and session spans. */
  #spend(p: AmplifierEvents["context:spend"]): void {
    const call = this.#answered?.span ?? this.#calls.at(-1)?.span;
    call?.setAttributes({
      [AMPLIFIER.USAGE_KIND]: p.kind,
      [AMPLIFIER.USAGE_CONVERSATION_COST_USD]: p.conversation.usd,
      [AMPLIFIER.USAGE_COMPACTION_COST_USD]: p.compaction.usd,
      [AMPLIFIER.USAGE_CACHE_CREATION_COST_USD]: p.cacheWrites.usd,
      [AMPLIFIER.USAGE_COST_USD]: p.conversation.usd + p.compaction.usd + p.cacheWrites.usd,
    });
    const s = p.session;
    const totals: Attributes = {
      [AMPLIFIER.SESSION_CONVERSATION_INPUT_TOKENS]: s.conversation.inputTokens,
      [AMPLIFIER.SESSION_CONVERSATION_OUTPUT_TOKENS]: s.conversation.outputTokens,
      [AMPLIFIER.SESSION_CONVERSATION_COST_USD]: s.conversation.usd,
      [AMPLIFIER.SESSION_COMPACTION_INPUT_TOKENS]: s.compaction.inputTokens,
      [AMPLIFIER.SESSION_COMPACTION_OUTPUT_TOKENS]: s.compaction.outputTokens,
      [AMPLIFIER.SESSION_COMPACTION_COST_USD]: s.compaction.usd,
      [AMPLIFIER.SESSION_COMPACTION_SUMMARIZER_CALLS]: s.compaction.summarizerCalls,
      [AMPLIFIER.SESSION_COMPACTION_PROVIDER_COMPACTIONS]: s.compaction.providerCompactions,
      [AMPLIFIER.SESSION_COMPACTION_COST_SHARE]: s.totalUsd > 0 ? s.compaction.usd / s.totalUsd : 0,
      [AMPLIFIER.SESSION_CACHE_CREATION_INPUT_TOKENS]: s.cacheWrites.tokens,
      [AMPLIFIER.SESSION_CACHE_CREATION_COST_USD]: s.cacheWrites.usd,
      [AMPLIFIER.SESSION_COST_USD]: s.totalUsd,
    };
    this.#turns.at(-1)?.span.setAttributes(totals);
    this.#session?.setAttributes(totals);
  }

  // --- events on the span they happened in ------------------------------------------------

  #contextEvent(event: ContextEventName, payload: unknown): void {
    const { name, attributes, failure } = contextEventAttributes(event, payload, this.#options.captureContent === true);
    const target = this.#eventTarget(event);
    if (target) {
      target.addEvent(name, attributes);
      return;
    }
    // Nothing open (a store that fell back while mounting): the event becomes a span of its own.
    const span = this.#tracer.startSpan(name, { kind: this.#api.SpanKind.INTERNAL, attributes: this.#common(attributes) }, this.#sessionContext());
    if (failure) span.setAttribute(ERROR_TYPE, failure);
    span.end();
  }

  #eventTarget(event: ContextEventName): Span | undefined {
    if (event === "context:calibration") return this.#answered?.span ?? this.#calls.at(-1)?.span ?? this.#turns.at(-1)?.span ?? this.#session;
    return this.#calls.at(-1)?.span ?? this.#turns.at(-1)?.span ?? this.#session;
  }

  // --- helpers ------------------------------------------------------------------------------

  #takeCall(provider: string): Span | undefined {
    const index = this.#calls.findIndex((c) => c.provider === provider);
    return index < 0 ? undefined : this.#calls.splice(index, 1)[0]!.span;
  }

  #flushAnswered(): void {
    const answered = this.#answered;
    this.#answered = undefined;
    answered?.span.end(answered.end);
  }

  #fail(span: Span, type: string, message: string, error?: Error): void {
    span.setAttribute(ERROR_TYPE, type);
    if (error) span.recordException(error);
    span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message });
  }

  #common(attributes: Attributes): Attributes {
    const id = this.#conversationId();
    return id === undefined ? attributes : { [GEN_AI.CONVERSATION_ID]: id, [SESSION_ID]: id, ...attributes };
  }

  #conversationId(): string | undefined {
    const given = this.#options.conversationId;
    return typeof given === "function" ? given() : given;
  }

  #sessionContext(): Context {
    const active = this.#api.context.active();
    return this.#session ? this.#api.trace.setSpan(active, this.#session) : active;
  }

  #turnContext(): Context {
    const turn = this.#turns.at(-1)?.span;
    return turn ? this.#api.trace.setSpan(this.#api.context.active(), turn) : this.#sessionContext();
  }

  #endAll(): void {
    this.#flushAnswered();
    for (const span of this.#tools.values()) abandon(span);
    this.#tools.clear();
    for (const { span } of this.#calls.splice(0)) abandon(span);
    for (const { span } of this.#turns.splice(0)) abandon(span);
    if (this.#session) abandon(this.#session);
    this.#session = undefined;
    this.#preCompact = undefined;
  }
}

/** A span ended without its closing event. */
function abandon(span: Span): void {
  span.setAttribute(AMPLIFIER.SPAN_ABANDONED, true);
  span.end();
}

/** `error.type`: the error's stable code (`PROVIDER/RATE_LIMITED`), else its class name. */
export function errorType(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === "string" && name !== "") return name;
  }
  return "_OTHER";
}

/**
 * A `performance.now()` timestamp: one of the API's TimeInput forms, which the SDK converts with
 * each span's own offset from Date.now() — consistent with the times it takes itself.
 */
function now(): number {
  return performance.now();
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}
