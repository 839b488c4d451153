import { randomUUID } from "node:crypto";
import type { ZodType } from "zod";
import type { ContextManager, WindowRequestOptions } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";
import type { Provider, ToolDefinition } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter, type TokenCounter } from "@amplifier-ts/core";
import { validateMessage } from "@amplifier-ts/contracts";
import { WindowAssembler, resolveBudget, type WindowReport } from "@amplifier-ts/window";
import { contextOptionsSchema, type ContextOptions, type ContextOptionsInput } from "./context-options.js";
import { freezeDeep, freezeNested, shallowCopy } from "@amplifier-ts/window";
import type { CompactionContext, Summarizer } from "@amplifier-ts/contracts";
import { configuredSummarizer, type ProviderLookup } from "@amplifier-ts/summarizers";
import { createPipeline, type StrategyServices } from "@amplifier-ts/strategies";
import { describeFailure, type CompactionPipeline, type PipelineRun } from "@amplifier-ts/strategies";
import { ExplainLog } from "@amplifier-ts/strategies";
import { explainWindow, type MessageExplanation } from "./window-explanation.js";
import type { Embedder, SearchHit, SearchOptions } from "@amplifier-ts/contracts";
import { HistorySearchIndex } from "@amplifier-ts/search";

export interface HistoryContextManagerInit {
  /** Name used in errors and events: "context-simple", "context-persistent", a third party's. */
  moduleName: string;
  options?: ContextOptionsInput;
  hooks?: HookBusContract;
  /** Write-through persistence; absent = in memory only. */
  store?: HistoryStore;
  sessionId?: string;
  /** Messages already in the store (resume). Trusted: they were validated when first added. */
  initialMessages?: Message[];
  /** Tool definitions sent with every request (they count against the budget). */
  tools?: ToolDefinition[];
  /** Summarizer handed to strategies that summarise (config `strategies`); overrides config `summarizer`. */
  summarizer?: Summarizer;
  /** Mounted providers, for config `summarizer: "provider"` (looked up when a summary is needed). */
  providers?: ProviderLookup;
  /** Host services for the configured strategies (e.g. `hybrid`: the stores of a hybrid store). */
  strategyServices?: StrategyServices;
  /** Embedder for hybrid search (contracts/search.ts); absent = lexical search only. */
  embedder?: Embedder;
}

/** The outcome of the last getMessagesForRequest, kept for explainLastWindow() and replay. */
export interface LastWindow {
  report: WindowReport;
  model: string;
  encoding: string;
  /** Strategies of the pipeline that changed something, then "window" (the assembler). */
  strategies: string[];
  /**
   * With `explain: true`: one entry per stored message — kept / truncated / summarized / dropped,
   * which strategy decided it ("window" = the window assembler) and why.
   */
  explanation?: MessageExplanation[];
}

/**
 * The behaviour every built-in context module shares: validation, ids, copies, runs and retention,
 * window assembly with the invariants of contracts/CONTEXT.md, events. context-simple uses it
 * without a store; context-persistent hands it a HistoryStore and writes through.
 *
 * History lives in memory (read once at open); the store is written before the in-memory copy
 * changes, so a failed write leaves both as they were (nothing half-written).
 */
export class HistoryContextManager implements ContextManager {
  readonly moduleName: string;
  readonly options: ContextOptions;
  readonly sessionId: string;
  protected readonly hooks: HookBusContract | undefined;
  protected store: HistoryStore | undefined;
  protected tools: ToolDefinition[] | undefined;
  private history: Message[] = [];
  private readonly assembler = new WindowAssembler();
  /** config `strategies`; empty (the default) = the incremental assembler alone. */
  readonly pipeline: CompactionPipeline;
  summarizer: Summarizer | undefined;
  /** Search over the stored history; built lazily on the first search (context.search, recall). */
  readonly searchIndex: HistorySearchIndex;
  /** Assembler over the pipeline's last output; appended to when the new output extends it. */
  private pipelineAssembler: WindowAssembler | undefined;
  private pipelineInput: readonly Message[] = [];
  private currentRunId: string | undefined;
  private last: LastWindow | undefined;
  /** Serializes mutations so concurrent callers see call order and never interleave a rewrite. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(init: HistoryContextManagerInit) {
    this.moduleName = init.moduleName;
    this.options = parseOptions(init.moduleName, init.options ?? {});
    this.hooks = init.hooks;
    this.store = init.store;
    this.sessionId = init.sessionId ?? randomUUID();
    this.tools = init.tools;
    this.summarizer = init.summarizer ?? configuredSummarizer(this.options.summarizer, init.providers ?? (() => undefined));
    this.pipeline = createPipeline(this.options.strategies, "strategies", init.strategyServices);
    // Follows this.history by reference: O(new) after addMessage, rebuilt after a replacement or resume.
    this.searchIndex = new HistorySearchIndex(() => this.history, { module: this.moduleName, ...(init.embedder ? { embedder: init.embedder } : {}) });
    if (init.initialMessages?.length) {
      // The store hands over objects nobody else holds (HistoryStore.open): no copy needed, and
      // nested values are frozen lazily when first exposed (message-copy.ts).
      this.history = init.initialMessages;
      this.assembler.reset(this.history);
    }
  }

  // --- the five methods ---------------------------------------------------------------------

  async addMessage(message: Message): Promise<void> {
    const stored = this.prepare(message, "message");
    await this.serialized(async () => {
      if (this.persists(stored)) await this.store!.append(this.sessionId, stored);
      this.history.push(stored);
      this.assembler.append(stored);
    });
  }

  async getMessagesForRequest(
    tokenBudget?: number,
    provider?: Provider,
    options: WindowRequestOptions = {},
  ): Promise<Message[]> {
    const info = provider ? await provider.getInfo() : undefined;
    const model = info?.defaults?.model ?? this.options.model;
    const modelInfo = getModelInfo(model);
    const budget = resolveBudget({
      tokenBudget,
      providerInfo: info,
      modelInfo,
      safetyMargin: this.options.safetyMargin,
      maxTokens: this.options.maxTokens,
    });
    const counter = this.counterFor(model);
    const extra = options.extraMessages?.map((m, i) => this.prepare(m, `extraMessages[${i}]`));
    if (!this.pipeline.isEmpty) return this.compactWithPipeline(budget, counter, model, extra, options.explain === true);
    const { messages, report } = this.assembleWith(this.assembler, budget, counter, extra, options.explain === true);
    this.last = {
      report,
      model,
      encoding: counter.encoding,
      strategies: ["window"],
      ...(report.decisions ? { explanation: explainWindow(this.history, this.history, report.decisions, undefined) } : {}),
    };
    // A window that only repaired (crash mid-tool, orphan results) is reported too (issue 4).
    if ((report.compacted || wasRepaired(report)) && this.hooks) {
      await this.hooks.emit("context:pre_compact", {
        messageCount: report.historyMessages,
        tokens: report.historyTokens,
        budget: report.budget,
      });
      await this.hooks.emit("context:post_compact", {
        messageCount: report.windowMessages,
        tokens: report.windowTokens,
        removed: report.removed,
        truncated: report.truncated,
        summarized: 0,
        strategies: ["window"],
        durationMs: report.durationMs,
        repaired: report.repaired,
      });
    }
    for (const message of messages) freezeNested(message);
    return messages;
  }

  async getMessages(): Promise<Message[]> {
    return this.history.map(shallowCopy);
  }

  async setMessages(messages: Message[]): Promise<void> {
    if (!Array.isArray(messages)) {
      throw createError("INVALID_ARGUMENT", "setMessages expects an array of messages", {
        module: this.moduleName,
        expected: "Message[]",
        given: messages,
      });
    }
    // Validate everything first: one bad message and nothing is replaced.
    const next = messages.map((m, i) => this.prepare(m, `messages[${i}]`));
    await this.serialized(async () => {
      if (this.store) await this.store.replace(this.sessionId, next.filter((m) => this.persists(m)));
      this.history = next;
      this.assembler.reset(next);
    });
  }

  async clear(): Promise<void> {
    await this.serialized(async () => {
      if (this.store) await this.store.clear(this.sessionId);
      this.history = [];
      this.assembler.reset([]);
    });
  }

  // --- runs and retention (agents/context seed: HistoryProvider) -------------------------------

  /** Messages added without a runId from now on belong to this run. */
  startRun(runId: string = randomUUID()): string {
    if (typeof runId !== "string" || runId.length === 0) {
      throw createError("INVALID_ARGUMENT", "startRun expects a non-empty run id", {
        module: this.moduleName,
        expected: "a non-empty string",
        given: runId,
      });
    }
    this.currentRunId = runId;
    return runId;
  }

  /** Ends a run; with retention "run" its messages are cleared (clearRun). */
  async endRun(runId: string | undefined = this.currentRunId): Promise<void> {
    if (runId === undefined) return;
    if (this.currentRunId === runId) this.currentRunId = undefined;
    if (this.options.retention === "run") await this.clearRun(runId);
  }

  async clearRun(runId: string): Promise<void> {
    if (typeof runId !== "string" || runId.length === 0) {
      throw createError("INVALID_ARGUMENT", "clearRun expects a non-empty run id", {
        module: this.moduleName,
        expected: "a non-empty string",
        given: runId,
      });
    }
    await this.serialized(async () => {
      const kept = this.history.filter((m) => m.metadata?.runId !== runId);
      if (kept.length === this.history.length) return;
      if (this.store) await this.store.clearRun(this.sessionId, runId);
      this.history = kept;
      this.assembler.reset(kept);
    });
  }

  // --- introspection ---------------------------------------------------------------------------

  /** Ranked hits over the stored history (contracts/search.ts); hits hold copies. */
  async search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    const hits = await this.searchIndex.search(query, options);
    const copy = (m: Message) => shallowCopy(m);
    return hits.map((h) => ({ ...h, message: copy(h.message), ...(h.neighbours ? { neighbours: { before: h.neighbours.before.map(copy), after: h.neighbours.after.map(copy) } } : {}) }));
  }

  /** The report of the last window (per-message decisions when it was requested with explain). */
  explainLastWindow(): LastWindow | undefined {
    return this.last;
  }

  /** Number of stored messages (cheap; no copies). */
  get size(): number {
    return this.history.length;
  }

  setTools(tools: ToolDefinition[] | undefined): void {
    this.tools = tools;
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.store?.close();
  }

  // --- internals --------------------------------------------------------------------------------

  /**
   * The configured pipeline over the stored history, then a window assembler over its output for
   * the final budget and invariants. The assembler is reused (O(new messages)) while the output
   * extends the previous one, so its hysteresis cut holds; otherwise it is rebuilt (O(output)).
   */
  private async compactWithPipeline(budget: number, counter: TokenCounter, model: string, extra: Message[] | undefined, explain: boolean): Promise<Message[]> {
    const log = new ExplainLog(explain);
    const context: CompactionContext = {
      budget,
      counter,
      explain: log,
      ...(this.tools ? { tools: this.tools } : {}),
      ...(this.hooks ? { hooks: this.hooks } : {}),
      ...(this.summarizer ? { summarizer: this.summarizer } : {}),
      search: this.searchIndex,
    };
    const run = await this.pipeline.run(this.history, context);
    for (const failure of run.failed) await this.hooks?.emit("context:strategy_failed", describeFailure(failure));
    const assembler = this.assemblerFor(run.messages);
    const { messages, report } = this.assembleWith(assembler, budget, counter, extra, explain);
    const strategies = [...run.changed, "window"];
    this.last = {
      report,
      model,
      encoding: counter.encoding,
      strategies,
      ...(report.decisions ? { explanation: explainWindow(this.history, run.messages, report.decisions, log) } : {}),
    };
    // The compaction events carry the stored history's token total: counting the stored messages
    // the window did not count (originals of compacted copies) is skipped when nobody listens.
    if ((report.compacted || wasRepaired(report) || run.changed.length > 0) && this.hooks && listensToCompaction(this.hooks)) {
      await this.emitCompaction(run, messages, report, counter, strategies);
    }
    for (const message of messages) freezeNested(message);
    return messages;
  }

  /** The final step of every request: the budget and the window invariants, with this module's cut settings. */
  private assembleWith(assembler: WindowAssembler, budget: number, counter: TokenCounter, extra: Message[] | undefined, explain: boolean) {
    return assembler.assemble({
      budget,
      counter,
      tools: this.tools,
      compactThreshold: this.options.compactThreshold,
      compactTarget: this.options.compactTarget,
      extraMessages: extra,
      explain,
    });
  }

  private assemblerFor(output: readonly Message[]): WindowAssembler {
    const previous = this.pipelineInput;
    let extends_ = this.pipelineAssembler !== undefined && output.length >= previous.length;
    for (let i = 0; extends_ && i < previous.length; i++) if (output[i] !== previous[i]) extends_ = false;
    if (!extends_ || !this.pipelineAssembler) {
      this.pipelineAssembler = new WindowAssembler(output);
    } else {
      for (let i = previous.length; i < output.length; i++) this.pipelineAssembler.append(output[i]!);
    }
    this.pipelineInput = output;
    return this.pipelineAssembler;
  }

  private async emitCompaction(run: PipelineRun, window: Message[], report: WindowReport, counter: TokenCounter, strategies: string[]): Promise<void> {
    const tools = this.tools?.length ? counter.countTools(this.tools) : 0;
    const tally = this.tallyHistory(counter);
    await this.hooks!.emit("context:pre_compact", {
      messageCount: this.history.length,
      tokens: tally.tokens + counter.replyPriming + tools,
      budget: report.budget,
    });
    let truncated = 0;
    let summarized = 0;
    let stored = 0;
    for (const m of window) {
      const mark = m.metadata?.window as { truncated?: unknown; synthetic?: unknown } | undefined;
      if (mark?.truncated) truncated++;
      const covers = m.metadata?.summary?.covers;
      if (Array.isArray(covers)) summarized += covers.length;
      if (!mark?.synthetic && typeof m.metadata?.id === "string" && tally.ids.has(m.metadata.id)) stored++;
    }
    await this.hooks!.emit("context:post_compact", {
      messageCount: report.windowMessages,
      tokens: report.windowTokens,
      removed: Math.max(0, this.history.length - stored),
      truncated,
      summarized,
      strategies,
      durationMs: run.durationMs + report.durationMs,
      repaired: report.repaired,
    });
  }

  /**
   * The stored history's ids and token total for a counter, kept up to date incrementally: the
   * history array only grows by push until it is replaced (setMessages, clear, clearRun), so the
   * compaction events cost O(new messages) per request, not O(history).
   */
  private tally: { history: Message[]; counted: number; ids: Set<string>; tokens: Map<TokenCounter, { counted: number; tokens: number }> } | undefined;
  private tallyHistory(counter: TokenCounter): { ids: Set<string>; tokens: number } {
    if (this.tally?.history !== this.history) this.tally = { history: this.history, counted: 0, ids: new Set(), tokens: new Map() };
    const tally = this.tally;
    const history = this.history;
    for (; tally.counted < history.length; tally.counted++) {
      const id = history[tally.counted]!.metadata?.id;
      if (typeof id === "string") tally.ids.add(id);
    }
    let sum = tally.tokens.get(counter);
    if (!sum) tally.tokens.set(counter, (sum = { counted: 0, tokens: 0 }));
    for (; sum.counted < history.length; sum.counted++) sum.tokens += counter.countMessage(history[sum.counted]!);
    return { ids: tally.ids, tokens: sum.tokens };
  }

  private prepare(message: Message, path: string): Message {
    const valid = validateMessage(message, path);
    const copy = structuredClone(valid);
    const metadata = { ...(copy.metadata ?? {}) };
    metadata.id ??= randomUUID();
    metadata.timestamp ??= new Date().toISOString();
    if (metadata.runId === undefined && this.currentRunId !== undefined) metadata.runId = this.currentRunId;
    copy.metadata = metadata;
    return freezeDeep(copy);
  }

  /** Ephemeral messages and retention "none" never reach the store. */
  private persists(message: Message): boolean {
    return this.store !== undefined && this.options.retention !== "none" && message.metadata?.ephemeral !== true;
  }

  private counters = new Map<string, TokenCounter>();
  private counterFor(model: string): TokenCounter {
    let counter = this.counters.get(model);
    if (!counter) {
      counter = getTokenCounter(model, { safetyFactor: this.options.safetyFactor });
      this.counters.set(model, counter);
    }
    return counter;
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run.catch((error: unknown) => {
      if (isAmplifierError(error)) throw error;
      throw createError("STORAGE_WRITE_FAILED", undefined, { module: this.moduleName, cause: error });
    });
  }
}

function parseOptions(moduleName: string, input: ContextOptionsInput): ContextOptions {
  return parseModuleConfig(moduleName, contextOptionsSchema, input);
}

/** Parses a module's config with its zod mirror; the first issue becomes INVALID_MODULE_CONFIG. */
export function parseModuleConfig<T>(moduleName: string, schema: ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = ["config", ...issue.path.map(String)].join(".");
  throw createError("INVALID_MODULE_CONFIG", issue.message, {
    module: moduleName,
    path,
    expected: issue.message,
    given: issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey], input),
    hint: issue.code === "unrecognized_keys" ? `allowed keys: ${Object.keys((schema as unknown as { shape?: object }).shape ?? {}).join(", ")}` : undefined,
  });
}

function wasRepaired(report: WindowReport): boolean {
  return report.repaired.syntheticResults > 0 || report.repaired.orphansDropped > 0 || report.repaired.placeholder;
}

/** Whether anyone would receive context:pre_compact / context:post_compact (a bus that cannot tell is assumed to). */
function listensToCompaction(hooks: HookBusContract): boolean {
  if (!hooks.hasListeners) return true;
  return hooks.hasListeners("context:pre_compact") || hooks.hasListeners("context:post_compact");
}
