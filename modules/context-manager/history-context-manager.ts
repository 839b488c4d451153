/**
 * The behaviour every built-in context module shares: validation, ids, copies, runs and retention,
 * window assembly with the invariants of contracts/CONTEXT.md, events. context-simple uses it
 * without a store; context-persistent hands it a HistoryStore and writes through.
 *
 * | concern                                        | held by                 |
 * |------------------------------------------------|-------------------------|
 * | config parsing                                 | module-config.ts        |
 * | stored history: copies, runs, retention, store | stored-history.ts       |
 * | model, budget and token counter of a request   | request-budget.ts       |
 * | compaction pipeline + assembler over its output| pipeline-window.ts      |
 * | context:pre_compact / post_compact (one builder)| compaction-events.ts    |
 * | the history's ids and token totals             | history-tally.ts        |
 * | messages far behind the window, packed         | cold-history.ts, held-message.ts |
 * | per-message explanation                        | window-explanation.ts   |
 * | search over the history                        | @amplifier-ts/search    |
 *
 * This class wires them and keeps the public API (the five methods, runs, search, explain).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { AnyStrategyDefinition, BilledUsage, CompactionContext, CompactOptions, CompactResult, ContextManager, Embedder, HistoryStore, HookBusContract, Message, Provider, SearchHit, SearchOptions, Summarizer, ToolDefinition, WindowRecord, WindowRequestOptions } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { exportTokenCounts, getModelInfo, type CarriedTokenCounts, type TokenCounter } from "@amplifier-ts/tokens";
import type { CompactionCostDecision } from "@amplifier-ts/contracts";
import { HistorySearchIndex, type VectorArchive } from "@amplifier-ts/search";
import { createStrategyRegistry, describeFailure, ExplainLog, type CompactionPipeline, type StrategyRegistry, type StrategyServices } from "@amplifier-ts/strategies";
import { configuredSummarizer, type ProviderLookup } from "@amplifier-ts/summarizers";
import { omittedHistoryMessage, shallowCopy, WindowAssembler } from "@amplifier-ts/window";
import { ColdHistory, type ColdHistoryOptions } from "./cold-history.js";
import { emitCompaction, isCompaction, listensToCompaction } from "./compaction-events.js";
import { decideCompaction, HistoryGrowth } from "./compaction-cost.js";
import { normalizeCompactionPolicy } from "./context-options.js";
import type { ContextOptions, ContextOptionsInput } from "./context-options.js";
import { HistoryTally } from "./history-tally.js";
import { IdleCount } from "./idle-count.js";
import { reportingOrphans } from "./orphan-results.js";
import { parseContextOptions } from "./module-config.js";
import { PipelineWindow } from "./pipeline-window.js";
import { compactionReport, hasCompaction, ProviderCompactedTail } from "./provider-compaction.js";
import { SpendTally, type BillKind } from "./spend-tally.js";
import { RequestBudget } from "./request-budget.js";
import { StoredHistory, type SkippedMessage } from "./stored-history.js";
import { TokenCalibration, type CalibrationRecord } from "./token-calibration.js";
import { UsageLedger, type UsageRecord } from "./usage-ledger.js";
import { explainWindow, type LastWindow } from "./window-explanation.js";
import { SpilledHistory, type SpillRecord, type SpillStore } from "./spilled-history.js";
import type { CarriedSpill, CarriedSpills } from "./carried-spills.js";
import { MemoryBlobStore } from "@amplifier-ts/module-store-blobs";
import { StoredKinds, ToolRecords, windowRecord, type WindowRecordInput } from "./window-record.js";

export { parseModuleConfig } from "./module-config.js";
export type { LastWindow } from "./window-explanation.js";
export type { SkippedMessage } from "./stored-history.js";

export interface HistoryContextManagerInit {
  /** Name used in errors and events: "context-simple", "context-persistent", a third party's. */
  moduleName: string;
  options?: ContextOptionsInput;
  hooks?: HookBusContract;
  /** Write-through persistence; absent = in memory only. */
  store?: HistoryStore;
  sessionId?: string;
  /** Messages already in the store (resume); one that is no longer a valid message is left out (skippedOnResume). */
  initialMessages?: Message[];
  /** Tool definitions sent with every request (they count against the budget). */
  tools?: ToolDefinition[];
  /** Summarizer handed to strategies that summarise (config `strategies`); overrides config `summarizer`. */
  summarizer?: Summarizer;
  /** Mounted providers, for config `summarizer: "provider"` (looked up when a summary is needed). */
  providers?: ProviderLookup;
  /** Host services for the configured strategies (e.g. `hybrid`: the stores of a hybrid store). */
  strategyServices?: StrategyServices;
  /**
   * Strategies of this manager besides the built-ins (a third party's `defineStrategy`), usable in
   * config `strategies`; no other manager sees them. Context modules pass the coordinator
   * capability "strategies" here (strategy-capability.ts).
   */
  strategyDefinitions?: Iterable<AnyStrategyDefinition>;
  /** Embedder for hybrid search (contracts/search.ts); absent = lexical search only. Messages are embedded in the background. */
  embedder?: Embedder;
  /** Where the embedder's vectors outlive the process, so a resume embeds nothing again (context-persistent: the session's attachments). */
  vectorArchive?: VectorArchive;
  /**
   * Packing of the messages far behind the window (cold-history.ts): its sizes, or false to keep
   * every message as a parsed object. Default: on, with the default sizes, with or without config
   * `strategies`. It runs in the event loop's idle turns, never while a call of this manager is in
   * flight, and stops with close().
   */
  coldHistory?: ColdHistoryOptions | false;
  /** The calibration to start from (a record saved by `onCalibration`, or a shared instance); absent = none yet. */
  calibration?: TokenCalibration | CalibrationRecord;
  /** Called with the calibration record after every bill that was recorded (context-persistent saves it beside the session). */
  onCalibration?: (record: CalibrationRecord) => void | Promise<void>;
  /**
   * Called with the record of every window this manager built (contracts/window-record.ts), right
   * after it was built and before getMessagesForRequest resolves: keep it cheap or queue it
   * (context-persistent queues it for the session's attachments).
   */
  onWindow?: (record: WindowRecord) => void;
  /** How many window records windowRecords() keeps in memory (the newest). Default 1,000. */
  windowRecordLimit?: number;
  /**
   * Where spilled inputs go (config `spill`, spilled-history.ts), made when the first one is
   * spilled. Default: a blob store in memory, keys under `<agentId>/<sessionId>/`;
   * context-persistent gives a JSONL session a file blob store beside the session.
   */
  spillStore?: () => SpillStore;
  /** Excerpts of spilled inputs an earlier process made (carriedSpills(), importCarriedSpills): a resume takes them instead of excerpting again. */
  carriedSpills?: ReadonlyMap<string, CarriedSpill>;
}

/** How many of the first and of the newest stored messages carriedTokenCounts() looks at. */
const CARRIED_HEAD = 32;
const CARRIED_TAIL = 4_096;
const WINDOW_RECORD_LIMIT = 1_000;

export class HistoryContextManager implements ContextManager {
  readonly moduleName: string;
  readonly options: ContextOptions;
  readonly sessionId: string;
  /** config `agentId`: whose history this is; the store keeps it under (agentId, sessionId). */
  readonly agentId: string;
  protected readonly hooks: HookBusContract | undefined;
  protected tools: ToolDefinition[] | undefined;
  /** This manager's strategies: `init.strategyDefinitions` over the built-in catalogue. */
  readonly strategyRegistry: StrategyRegistry;
  /** config `strategies`; empty (the default) = the incremental assembler alone. */
  readonly pipeline: CompactionPipeline;
  summarizer: Summarizer | undefined;
  /** Search over the stored history; built lazily on the first search (context.search, recall). */
  readonly searchIndex: HistorySearchIndex;
  readonly #history: StoredHistory;
  /** Packs the messages far behind the window; undefined when `coldHistory: false`. */
  readonly coldHistory: ColdHistory | undefined;
  /** Follows the stored history: O(new messages) per request while it only grows. */
  readonly #assembler = new WindowAssembler();
  readonly #pipelineWindow: PipelineWindow;
  readonly #budget: RequestBudget;
  readonly #tally = new HistoryTally();
  readonly #compactedTail = new ProviderCompactedTail();
  readonly #spend = new SpendTally();
  /** config `compactionPolicy`, normalized (compaction-cost.ts). */
  readonly #policy: { policy: "threshold" | "cost"; horizonTurns: number };
  readonly #growth = new HistoryGrowth();
  /** Set while the context's summarizer runs: a bill that arrives inside it is the summarizer's (spend-tally.ts). */
  readonly #summarizing = new AsyncLocalStorage<true>();
  /** The summarizer handed to strategies, wrapped so its calls' bills are known as compaction. */
  #billedSummarizer: { of: Summarizer; wrapped: Summarizer } | undefined;
  /** The cost policy's decision for the window being built (undefined: threshold policy, unpriced model, or nothing to compact). */
  #decision: CompactionCostDecision | undefined;
  /** The last window and its counter, while the provider compacts on its server: what a compaction in the answer stands for. */
  #serverWindow: { messages: readonly Message[]; counter: TokenCounter } | undefined;
  readonly #usage: UsageLedger;
  readonly #onCalibration: ((record: CalibrationRecord) => void | Promise<void>) | undefined;
  readonly #unsubscribe: (() => void) | undefined;
  #last: LastWindow | undefined;
  /** The last window handed out: its copies (thinking stripped, spilled excerpts, cuts) are counted too, and their counts carried. */
  #lastSent: readonly Message[] | undefined;
  /** The last window request's budget, provider and tools: what compact() builds its window with. */
  #lastRequest: { tokenBudget: number | undefined; provider: Provider | undefined; tools: ToolDefinition[] | undefined } | undefined;
  /** The stored position of each message of the pipeline's last output, over that history array (positionsInto). */
  #origin: { history: readonly Message[]; positions: Array<number | undefined> } | undefined;
  readonly #records: WindowRecord[] = [];
  readonly #recordLimit: number;
  readonly #toolRecords = new ToolRecords();
  /** What each stored message a window sent is, for the records (positions of the stored history never change). */
  readonly #storedKinds = new StoredKinds();
  /** Counts in idle time what the last window priced by bounds (idle-count.ts). */
  readonly #idleCount = new IdleCount();
  readonly #onWindow: ((record: WindowRecord) => void) | undefined;
  /** The history as windows and strategies see it: spilled inputs replaced by their excerpts. */
  readonly #spill: SpilledHistory;

  constructor(init: HistoryContextManagerInit) {
    this.moduleName = init.moduleName;
    this.options = parseContextOptions(init.moduleName, init.options ?? {});
    this.#policy = normalizeCompactionPolicy(this.options.compactionPolicy);
    this.hooks = init.hooks;
    this.sessionId = init.sessionId ?? randomUUID();
    this.agentId = this.options.agentId;
    this.tools = init.tools;
    this.summarizer = init.summarizer ?? configuredSummarizer(this.options.summarizer, init.providers ?? (() => undefined));
    this.strategyRegistry = createStrategyRegistry(init.strategyDefinitions);
    this.pipeline = this.strategyRegistry.createPipeline(this.options.strategies, "strategies", init.strategyServices);
    this.#pipelineWindow = new PipelineWindow(this.pipeline);
    this.#budget = new RequestBudget(this.options);
    const calibration = init.calibration instanceof TokenCalibration ? init.calibration : init.calibration === undefined ? new TokenCalibration() : TokenCalibration.fromJSON(init.calibration);
    this.#usage = new UsageLedger(calibration, this.options.safetyFactor);
    this.#onCalibration = init.onCalibration;
    this.#onWindow = init.onWindow;
    this.#recordLimit = init.windowRecordLimit ?? WINDOW_RECORD_LIMIT;
    // Provider modules announce their bill on the bus: the window this manager produced is matched
    // with it. A handler, not an observer, so the provider's emit resolves once the bill is recorded.
    this.#unsubscribe = init.hooks?.register(
      "provider:response",
      async (event) => {
        const kind = this.#summarizing.getStore() === true ? "summarizer" : "conversation";
        if (event?.usage !== undefined) await this.recordUsage(event.usage, { ...(event.model === undefined ? {} : { model: event.model }), kind });
        if (event?.message !== undefined && hasCompaction(event.message)) this.#reportProviderCompaction(event);
      },
      { name: `${this.moduleName}:calibration` },
    );
    // Under a pipeline too: the strategies follow the history incrementally (their token sums and
    // splits grow with it) and read what lies behind the window through the held messages' facts.
    this.coldHistory = init.coldHistory === false ? undefined : new ColdHistory(init.coldHistory);
    const spillPrefix = `${this.agentId}/${this.sessionId}/`;
    this.#spill = new SpilledHistory({
      moduleName: this.moduleName,
      options: this.options.spill,
      store: init.spillStore ?? (() => ({ blobs: new MemoryBlobStore(), keyPrefix: spillPrefix })),
      follower: reportingOrphans(this.#assembler, (message, callIds) => this.#reportOrphan(message, callIds)),
      assembler: this.#assembler,
      hooks: this.hooks,
      ...(init.carriedSpills ? { carried: init.carriedSpills } : {}),
    });
    this.#history = new StoredHistory({
      cold: this.coldHistory,
      moduleName: this.moduleName,
      sessionId: this.sessionId,
      agentId: this.agentId,
      retention: this.options.retention,
      store: init.store,
      follower: this.#spill,
      ...(init.initialMessages ? { initialMessages: init.initialMessages } : {}),
    });
    // Follows the history by reference: O(new) after addMessage, rebuilt after a replacement or resume.
    this.searchIndex = new HistorySearchIndex(() => this.#history.messages, {
      module: this.moduleName,
      ...(init.embedder ? { embedder: init.embedder } : {}),
      ...(init.vectorArchive ? { vectorArchive: init.vectorArchive } : {}),
    });
    // With an embedder, the resumed history is embedded (or matched with its archived vectors) in the background.
    this.searchIndex.noteChanged();
  }

  protected get store(): HistoryStore | undefined {
    return this.#history.store;
  }

  // --- the five methods ---------------------------------------------------------------------

  async addMessage(message: Message): Promise<void> {
    const done = this.#calls();
    try {
      await this.#history.append(this.#history.prepare(message, "message"));
    } finally {
      done?.();
    }
    this.searchIndex.noteChanged();
  }

  async getMessagesForRequest(tokenBudget?: number, provider?: Provider, options: WindowRequestOptions = {}): Promise<Message[]> {
    const done = this.#calls();
    this.#lastRequest = { tokenBudget, provider, tools: options.tools };
    try {
      const window = await this.#window(tokenBudget, provider, options);
      this.#lastSent = window;
      return window;
    } finally {
      done?.();
    }
  }

  async #window(tokenBudget: number | undefined, provider: Provider | undefined, options: WindowRequestOptions): Promise<Message[]> {
    const resolved = await this.#budget.resolve(tokenBudget, provider);
    const { budget, model } = resolved;
    const counter = this.#usage.counterFor(model, resolved.counter);
    const extra = this.#requestOnly(options);
    const tools = this.#toolsFor(options);
    const explain = options.explain === true;
    await this.#spill.prepare(budget, counter, !this.pipeline.isEmpty);
    const setting = this.options.providerCompaction;
    const serverSide = setting === "on" || (setting === "auto" && resolved.serverCompaction);
    const messages = serverSide
      ? await this.#windowForServerCompaction(budget, counter, model, extra, tools, explain)
      : this.pipeline.isEmpty
        ? await this.#windowOverHistory(budget, counter, model, extra, tools, explain)
        : await this.#windowOverPipeline(budget, counter, model, extra, tools, explain);
    this.#serverWindow = serverSide ? { messages, counter } : undefined;
    // What the window priced by bounds instead of counting is counted in idle time: the next turn
    // finds it counted and tokenizes only its own message, if that (idle-count.ts).
    if (this.#assembler.pending > 0 || this.#pipelineWindow.pending > 0) {
      this.#idleCount.after(() => {
        this.#assembler.settle();
        this.#pipelineWindow.settle();
      });
    }
    // Counted only if a bill arrives for it (usage-ledger.ts): a window without a bill costs nothing here.
    this.#usage.expect(model, counter, messages, tools, resolved.counter.safetyFactor);
    return messages;
  }

  /**
   * Manual compaction (contracts/CONTEXT.md): the summarizing strategies of the pipeline summarise
   * their next cut now, with `focus` handed to the summarizer; a window is built at once with the
   * last request's budget and provider (so the result is known when this resolves), and every
   * later window uses the summary. No summarizing strategy in `strategies` → COMPACTION_UNAVAILABLE.
   */
  async compact(options: CompactOptions = {}): Promise<CompactResult> {
    if (typeof options !== "object" || options === null || (options.focus !== undefined && typeof options.focus !== "string")) {
      throw createError("INVALID_ARGUMENT", "compact expects { focus?: string }", { module: this.moduleName, path: "options", expected: "{ focus?: string } or undefined", given: options });
    }
    const strategies = this.pipeline.manualCompactors();
    if (strategies.length === 0) {
      throw createError("COMPACTION_UNAVAILABLE", `${this.moduleName} has no summarizing strategy in strategies`, {
        module: this.moduleName,
        path: "strategies",
        expected: 'a "summarizing" or "summarization" strategy',
        given: this.pipeline.strategies.map((s) => s.name),
      });
    }
    const results = strategies.map((s) => s.requestCompaction(options.focus === undefined ? {} : { focus: options.focus }));
    const last = this.#lastRequest;
    try {
      await this.getMessagesForRequest(last?.tokenBudget, last?.provider, last?.tools ? { tools: last.tools } : {});
    } finally {
      // A strategy the window did not run (a parent that did not call it, provider-side compaction) answers "not run".
      for (const s of strategies) s.cancelCompaction("the strategy did not run for this window");
    }
    const done = await Promise.all(results);
    return done.find((r) => r.compacted) ?? done[0]!;
  }

  async getMessages(): Promise<Message[]> {
    // Synchronous: no packing slice can run in between.
    return this.#history.messages.map(shallowCopy);
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
    const next = messages.map((m, i) => this.#history.prepare(m, `messages[${i}]`));
    this.#lastSent = undefined;
    await this.#busyWhile(this.#history.replace(next));
    // The removed messages' spilled text is deleted before the call resolves (spilled-history.ts #forgetRemoved).
    await this.#spill.settled();
    this.searchIndex.noteChanged();
  }

  async clear(): Promise<void> {
    this.#lastSent = undefined;
    await this.#busyWhile(this.#history.clear());
    // The removed messages' spilled text is deleted before the call resolves (spilled-history.ts #forgetRemoved).
    await this.#spill.settled();
  }

  /**
   * Resolves once every stored message is in the search index and — with an embedder — has its
   * vector (computed in the background; a turn never waits for it), and the vectors are written
   * where the session keeps them. For batch jobs and evaluations: `await context.indexReady()`
   * before measuring. Rejects with the embedder's error when a batch could not be embedded (a
   * later call tries again).
   */
  async indexReady(): Promise<void> {
    await this.searchIndex.indexReady();
  }

  // --- counts reconciled with the bill (contracts/TOKENS.md §8) ---------------------------------

  /**
   * Matches what the provider billed for the last window this manager produced with its counted
   * size, and calibrates the model's safety factor from the ratio. Called automatically for every
   * `provider:response` on the bus; call it yourself when your provider emits none:
   * `await context.recordUsage(response.usage)`. A bill with no window pending (already recorded,
   * or for another model) records nothing and returns undefined. Emits `context:calibration`.
   */
  async recordUsage(usage: BilledUsage | undefined, options: { model?: string; kind?: BillKind } = {}): Promise<UsageRecord | undefined> {
    if (usage !== undefined && (typeof usage !== "object" || usage === null)) {
      throw createError("INVALID_ARGUMENT", "recordUsage expects the usage the provider billed", { module: this.moduleName, path: "usage", expected: "{ inputTokens, outputTokens?, cacheReadTokens?, cacheWriteTokens?, compaction? }", given: usage });
    }
    const kind: BillKind = options.kind === "summarizer" ? "summarizer" : "conversation";
    if (usage !== undefined) {
      const model = options.model ?? this.#usage.pendingModel ?? this.options.model;
      const parts = this.#spend.add(model, usage, kind);
      if (this.hooks) {
        const { priced, conversation, compaction, cacheWrites } = parts;
        this.hooks.emit("context:spend", { model, kind, priced, conversation, compaction, cacheWrites, session: this.#spend.snapshot().breakdown }).catch(() => undefined);
      }
    }
    // A summarizer's bill is not the window's: the calibration waits for the conversation's.
    if (kind === "summarizer") return undefined;
    const record = this.#usage.settle(usage, options.model);
    if (record === undefined) return undefined;
    await this.hooks?.emit("context:calibration", record);
    await this.#onCalibration?.(this.#usage.calibration.toJSON());
    return record;
  }

  /**
   * `context:orphan_tool_result` for a stored result that answers no open call (orphan-results.ts).
   * An observer event: not awaited, so a slow handler never holds addMessage; the bus reports a
   * throwing one (hook:error).
   */
  #reportOrphan(message: Message, callIds: string[]): void {
    if (this.hooks === undefined) return;
    const payload = { role: message.role, callIds, messageCount: this.#history.messages.length, ...(message.metadata?.id === undefined ? {} : { id: message.metadata.id }) };
    this.hooks.emit("context:orphan_tool_result", payload).catch(() => undefined);
  }

  /** The calibration this manager counts with (its `toJSON()` is the record to persist). */
  get calibration(): TokenCalibration {
    return this.#usage.calibration;
  }

  /**
   * What the bills recorded so far cost, at the model registry's list prices, the provider's
   * server-side compaction apart from the answers (spend-tally.ts).
   */
  get spend(): ReturnType<SpendTally["snapshot"]> {
    return this.#spend.snapshot();
  }

  /** The last bill matched with a window: counted vs billed, ratio, factor. */
  get lastUsage(): UsageRecord | undefined {
    return this.#usage.last;
  }

  // --- runs and retention -------------------------------

  /** Messages added without a runId from now on belong to this run. */
  startRun(runId: string = randomUUID()): string {
    return this.#history.startRun(runId);
  }

  /** Ends a run; with retention "run" its messages are cleared (clearRun). */
  async endRun(runId?: string): Promise<void> {
    await this.#busyWhile(this.#history.endRun(runId));
    // The removed messages' spilled text is deleted before the call resolves (spilled-history.ts #forgetRemoved).
    await this.#spill.settled();
  }

  async clearRun(runId: string): Promise<void> {
    await this.#busyWhile(this.#history.clearRun(runId));
    // The removed messages' spilled text is deleted before the call resolves (spilled-history.ts #forgetRemoved).
    await this.#spill.settled();
  }

  // --- introspection ---------------------------------------------------------------------------

  /** Ranked hits over the stored history (contracts/search.ts); hits hold copies. */
  async search(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    const hits = await this.#busyWhile(this.searchIndex.search(query, options));
    return hits.map(copyHit);
  }

  /** The report of the last window (per-message decisions when it was requested with explain). */
  explainLastWindow(): LastWindow | undefined {
    return this.#last;
  }

  /**
   * The whole text of a spilled input (config `spill`): what the read_stored_result tool pages
   * and searches. An unknown handle → SPILL/UNKNOWN_HANDLE; not a handle → INVALID_ARGUMENT.
   */
  readSpilled(handle: string): Promise<string> {
    return this.#spill.read(handle);
  }

  /** How a stored message was spilled (handle, sizes), or undefined when it was not. */
  spilledOf(messageId: string): Readonly<Omit<SpillRecord, "original" | "excerpt" | "callTerms" | "queryKey">> | undefined {
    const record = this.#spill.recordOf(messageId);
    if (record === undefined) return undefined;
    const { handle, role, tokens, excerptTokens, bytes, chars, toolCallId } = record;
    return { handle, messageId, role, tokens, excerptTokens, bytes, chars, ...(toolCallId === undefined ? {} : { toolCallId }) };
  }

  /**
   * What was sent, request by request: the newest `windowRecordLimit` window records (budget,
   * model, tool definitions, token split, run-length decisions — contracts/window-record.ts), oldest
   * first. The Inspector shows them for a live session; context-persistent also keeps them beside
   * the session.
   */
  windowRecords(): readonly WindowRecord[] {
    return this.#records;
  }

  /**
   * Resumed messages left out of the history because they are no longer valid messages (a record
   * another program wrote; a value that cannot be counted): index in the store's list, id, error.
   * The session goes on without them; context-persistent reports them as context:storage_degraded.
   */
  get skippedOnResume(): readonly SkippedMessage[] {
    return this.#history.skipped;
  }

  /**
   * The token counts a resume of this session will need first — the instructions, the newest
   * messages, the window's omitted-history placeholder — as counted in this process, for the
   * next one (core importTokenCounts; context-persistent keeps them beside the session). Nothing
   * is read from the messages: counts are looked up by object.
   */
  carriedTokenCounts(): CarriedTokenCounts {
    // What the last windows priced by upper bounds and the idle count has not counted yet (close()
    // cancels it) is counted now: a count never taken is not carried, and the next process would
    // load the tokenizer for its first window.
    this.#assembler.settle();
    this.#pipelineWindow.settle();
    const history = this.#history.messages;
    // And the new messages the spill walk left uncounted: a resumed process's walk back counts them.
    this.#spill.countUncounted(Math.max(0, history.length - CARRIED_TAIL));
    const head = history.slice(0, Math.min(CARRIED_HEAD, history.length));
    const tail = history.slice(Math.max(head.length, history.length - CARRIED_TAIL));
    // The copies windows count too, so a resume whose window is the same counts nothing: the last window's (thinking
    // stripped, spilled excerpts), every spilled copy (a resume takes their carried excerpts: carriedSpills), and what
    // the newest units send in place of stored messages (synthetic and repaired results; the ledger counts the unit
    // below the cut as well).
    const copies = this.#assembler.copiesFrom(Math.max(0, history.length - CARRIED_TAIL));
    return exportTokenCounts([...head, ...tail, omittedHistoryMessage(), ...(this.#lastSent ?? []), ...this.#spill.copies(), ...copies]);
  }

  /** The excerpts of the spilled inputs in the history, for the next process (carried-spills.ts); context-persistent saves them at close. */
  carriedSpills(): CarriedSpills {
    return this.#spill.carriedSpills();
  }

  /** Number of stored messages (cheap; no copies). */
  get size(): number {
    return this.#history.messages.length;
  }

  setTools(tools: ToolDefinition[] | undefined): void {
    this.tools = tools;
  }

  /**
   * Ends this manager's work: the packing stops (nothing of it stays scheduled), the bill listener
   * goes, pending writes finish and the store closes. Every context module registers it as a cleanup.
   */
  async close(): Promise<void> {
    await this.coldHistory?.close();
    this.#idleCount.close();
    // Background summaries (strategies' `background: true`) are the session's work too: stopped and awaited.
    await this.pipeline.close();
    this.#unsubscribe?.();
    // Before the store closes: the vectors queued for the session's attachments are written.
    await this.searchIndex.close();
    // A spill or a deletion of removed messages' spilled text in flight: finished, not left behind.
    await this.#spill.settled();
    await this.#history.close();
  }

  // --- private ----------------------------------------------------------------------------------

  /** A call starts: the packing and the idle count wait until the returned function is called. */
  #calls(): () => void {
    const cold = this.coldHistory?.busy();
    const idle = this.#idleCount.busy();
    return () => {
      cold?.();
      idle();
    };
  }

  /** Holds the packing (cold-history.ts) while `work` is in flight: a call never shares the event loop with it. */
  async #busyWhile<T>(work: Promise<T>): Promise<T> {
    const done = this.#calls();
    try {
      return await work;
    } finally {
      done?.();
    }
  }

  /** `summarizer`, its calls run inside #summarizing (their bills are compaction's); one wrapper per summarizer. */
  #billed(summarizer: Summarizer): Summarizer {
    if (this.#billedSummarizer?.of === summarizer) return this.#billedSummarizer.wrapped;
    const summarizing = this.#summarizing;
    const wrapped = new Proxy(summarizer, {
      get(target, property) {
        if (property === "summarize") return (messages: readonly Message[], options: Parameters<Summarizer["summarize"]>[1]) => summarizing.run(true, () => target.summarize(messages, options));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    this.#billedSummarizer = { of: summarizer, wrapped };
    return wrapped;
  }

  /** `options.extraMessages`, each validated and copied like a stored message; not an array → INVALID_ARGUMENT. */
  #requestOnly(options: WindowRequestOptions): Message[] | undefined {
    if (typeof options !== "object" || options === null) {
      throw createError("INVALID_ARGUMENT", "getMessagesForRequest options must be an object", { module: this.moduleName, path: "options", expected: "{ extraMessages?, explain?, tools? } or undefined", given: options });
    }
    const extra: unknown = options.extraMessages;
    if (extra === undefined) return undefined;
    if (!Array.isArray(extra)) {
      throw createError("INVALID_ARGUMENT", "extraMessages must be an array of messages", { module: this.moduleName, path: "options.extraMessages", expected: "Message[]", given: extra });
    }
    return extra.map((m: Message, i) => this.#history.prepare(m, `extraMessages[${i}]`));
  }

  /**
   * The tools of this request: `options.tools` wins over setTools() for it (`[]` = none); each
   * definition is checked when the counter counts it (INVALID_ARGUMENT at tools[i]).
   */
  #toolsFor(options: WindowRequestOptions): ToolDefinition[] | undefined {
    const tools: unknown = options.tools;
    if (tools === undefined) return this.tools;
    if (!Array.isArray(tools)) {
      throw createError("INVALID_ARGUMENT", "tools must be an array of tool definitions", { module: this.moduleName, path: "options.tools", expected: 'ToolDefinition[]: { type: "function", function: { name, description?, parameters? } }', given: tools });
    }
    return tools as ToolDefinition[];
  }

  /** No pipeline: the incremental assembler over the stored history. */
  async #windowOverHistory(budget: number, counter: TokenCounter, model: string, extra: Message[] | undefined, tools: ToolDefinition[] | undefined, explain: boolean): Promise<Message[]> {
    const history = this.#history.messages;
    const { messages, report } = this.#assemble(this.#assembler, budget, counter, extra, tools, explain, model);
    // What this window keeps stays hot: no packing at or after its cut.
    this.coldHistory?.windowFrom(report.cutIndex);
    this.#spill.windowFrom(report.cutIndex);
    this.#last = {
      report,
      model,
      encoding: counter.encoding,
      ...(this.#decision ? { compactionDecision: this.#decision } : {}),
      strategies: ["window"],
      ...(report.decisions ? { explanation: this.#spill.annotate(explainWindow(history, this.#spill.view, report.decisions, undefined)) } : {}),
    };
    const spilled = this.#spill.spilledPositions();
    this.#record({ history, report, model, counter, tools, strategies: ["window"], explanation: this.#last.explanation, kinds: this.#storedKinds, ...(spilled ? { spilled } : {}) });
    // Over the stored history itself the report accounts for the history (no recount).
    if (isCompaction(report, false) && this.hooks && listensToCompaction(this.hooks)) {
      const totals = { messageCount: report.historyMessages, tokens: report.historyTokens, ids: this.#tally.ids(history) };
      await emitCompaction(this.hooks, { history: totals, window: messages, report, strategies: ["window"], durationMs: report.durationMs, ...(this.#decision ? { decision: this.#decision } : {}) });
    }
    return messages;
  }

  /**
   * The provider compacts on its server (provider-compaction.ts): before its first compaction the
   * incremental assembler over the stored history; after it, the assembler over the instructions,
   * a placeholder and the history from the newest compaction block on. No pipeline either way.
   */
  async #windowForServerCompaction(budget: number, counter: TokenCounter, model: string, extra: Message[] | undefined, tools: ToolDefinition[] | undefined, explain: boolean): Promise<Message[]> {
    // The spilled view: a spilled input is sent as its excerpt here too (the provider cannot take it whole either).
    const tail = this.#compactedTail.follow(this.#spill.view);
    if (tail === undefined) return this.#windowOverHistory(budget, counter, model, extra, tools, explain);
    const { messages, report } = this.#assemble(tail.assembler, budget, counter, extra, tools, explain, model);
    // What precedes the newest compaction is never sent again: it may be packed.
    this.coldHistory?.windowFrom(tail.from);
    const strategies = ["provider-compaction", "window"];
    this.#last = {
      report,
      model,
      encoding: counter.encoding,
      ...(this.#decision ? { compactionDecision: this.#decision } : {}),
      strategies,
      ...(report.decisions ? { explanation: explainWindow(tail.items, tail.items, report.decisions, undefined) } : {}),
    };
    this.#record({ history: tail.items, report, model, counter, tools, strategies, explanation: this.#last.explanation });
    // The budget's own cut over the tail (a provider threshold above the budget): reported as the engine's.
    if (isCompaction(report, false) && this.hooks && listensToCompaction(this.hooks)) {
      const totals = { messageCount: report.historyMessages, tokens: report.historyTokens, ids: this.#tally.ids(tail.items) };
      await emitCompaction(this.hooks, { history: totals, window: messages, report, strategies, durationMs: report.durationMs, ...(this.#decision ? { decision: this.#decision } : {}) });
    }
    return messages;
  }

  /** `context:post_compact` with source "provider" for an answer that carries a compaction block (provider-compaction.ts). */
  #reportProviderCompaction(event: { provider: string; message: Message; usage?: BilledUsage; durationMs?: number }): void {
    const window = this.#serverWindow;
    if (this.hooks === undefined || window === undefined) return;
    const post = compactionReport({ provider: event.provider, answer: event.message, window: window.messages, usage: event.usage, counter: window.counter, durationMs: event.durationMs });
    this.hooks.emit("context:post_compact", post).catch(() => undefined);
  }

  /** The configured pipeline over the stored history, then the assembler over its output. */
  async #windowOverPipeline(budget: number, counter: TokenCounter, model: string, extra: Message[] | undefined, tools: ToolDefinition[] | undefined, explain: boolean): Promise<Message[]> {
    const history = this.#history.messages;
    const log = new ExplainLog(explain);
    const context: CompactionContext = {
      budget,
      counter,
      explain: log,
      ...(tools ? { tools } : {}),
      ...(this.hooks ? { hooks: this.hooks } : {}),
      ...(this.summarizer ? { summarizer: this.#billed(this.summarizer) } : {}),
      // The turn's path: no embedding is waited for (a query without a known vector goes lexical).
      search: this.searchIndex.turnPath,
    };
    // The cached positions follow the pipeline's runs one to one: a request that fails after its run leaves none.
    const previous = this.#origin;
    this.#origin = undefined;
    const { run, assembler, unchanged } = await this.#pipelineWindow.run(this.#spill.view, context);
    for (const failure of run.failed) await this.hooks?.emit("context:strategy_failed", describeFailure(failure));
    const { messages, report } = this.#assemble(assembler, budget, counter, extra, tools, explain, model);
    const strategies = [...run.changed, "window"];
    this.#last = {
      report,
      model,
      encoding: counter.encoding,
      ...(this.#decision ? { compactionDecision: this.#decision } : {}),
      strategies,
      ...(report.decisions ? { explanation: this.#spill.annotate(explainWindow(history, run.messages, report.decisions, log)) } : {}),
    };
    const explanation = this.#last.explanation;
    // Each output message's stored position, from the tally's id positions (no scan, no parse of
    // packed messages): kept for the output's unchanged prefix over the same history, so O(what changed).
    const kept = previous?.history === history ? unchanged : 0;
    const origin = this.#tally.positionsInto(history, run.messages, kept > 0 ? previous!.positions : [], kept);
    this.#origin = { history, positions: origin };
    // What this window keeps stays hot: no packing at or after the stored position of its cut.
    this.coldHistory?.windowFrom(firstOriginFrom(origin, report.cutIndex) ?? history.length);
    const spilled = this.#spill.spilledPositions();
    this.#record({ history, report, model, counter, tools, strategies, explanation, kinds: this.#storedKinds, ...(explanation ? {} : { pipelineOrigin: origin }), ...(spilled ? { spilled } : {}) });
    // The history's totals count the stored messages the window did not (originals of compacted
    // copies): that work is skipped when nobody listens.
    if (isCompaction(report, run.changed.length > 0) && this.hooks && listensToCompaction(this.hooks)) {
      const toolTokens = tools?.length ? counter.countTools(tools) : 0;
      const totals = { messageCount: history.length, tokens: this.#tally.tokens(history, counter) + counter.replyPriming + toolTokens, ids: this.#tally.ids(history) };
      await emitCompaction(this.hooks, { history: totals, window: messages, report, strategies, durationMs: run.durationMs + report.durationMs, ...(this.#decision ? { decision: this.#decision } : {}) });
    }
    return messages;
  }

  /** Keeps the window's record (windowRecords) and hands it to `onWindow`. */
  #record(input: WindowRecordInput): void {
    const record = windowRecord(input, this.#toolRecords.of(input.tools, input.counter));
    this.#records.push(record);
    if (this.#records.length > this.#recordLimit) this.#records.splice(0, this.#records.length - this.#recordLimit);
    this.#onWindow?.(record);
  }

  /**
   * The final step of every request: the budget and the window invariants, with this module's cut
   * settings. Under `compactionPolicy: "cost"` with a priced model: the window is first built with
   * the cut kept as long as it fits the budget (threshold 1); past compactTarget, compacting now is
   * weighed against carrying it (compaction-cost.ts), and a compaction builds it again at the target.
   */
  #assemble(assembler: WindowAssembler, budget: number, counter: TokenCounter, extra: Message[] | undefined, tools: ToolDefinition[] | undefined, explain: boolean, model: string) {
    this.#decision = undefined;
    const prices = this.#policy.policy === "cost" ? getModelInfo(model)?.prices : undefined;
    if (prices === undefined) return this.#assembleAt(assembler, budget, counter, extra, tools, explain, this.options.compactThreshold);
    const carried = this.#assembleAt(assembler, budget, counter, extra, tools, explain, 1);
    const { report } = carried;
    const growthPerTurn = this.#growth.observe(report.historyTokens);
    const targetTokens = Math.floor(this.options.compactTarget * budget);
    const horizonTurns = this.#policy.horizonTurns;
    const forced = report.cutReason === "recut" || report.cutReason === "latest" || report.cutReason === "ladder";
    if (forced) {
      this.#decision = { policy: "cost", compact: true, forced: true, horizonTurns, windowTokens: report.windowTokens, targetTokens, budget, growthPerTurn, reason: `cost policy: the window would not fit the budget of ${budget} tokens with the cut kept; compacted (${report.cutReason})` };
      return carried;
    }
    if (report.windowTokens <= targetTokens) return carried;
    const decision = decideCompaction({ windowTokens: report.windowTokens, targetTokens, budget, growthPerTurn, horizonTurns, prices });
    this.#decision = decision;
    return decision.compact ? this.#assembleAt(assembler, budget, counter, extra, tools, explain, this.options.compactTarget) : carried;
  }

  #assembleAt(assembler: WindowAssembler, budget: number, counter: TokenCounter, extra: Message[] | undefined, tools: ToolDefinition[] | undefined, explain: boolean, compactThreshold: number) {
    const assembled = assembler.assemble({
      budget,
      counter,
      tools,
      compactThreshold,
      compactTarget: this.options.compactTarget,
      thinking: this.options.thinking,
      extraMessages: extra,
      explain,
      // The stored messages themselves, frozen, not a copy per window (contracts/CONTEXT.md "Copies").
      handOut: "frozen",
    });
    // The assembler saw spilled messages as their excerpts: its decisions say so (truncated / spilled).
    const decisions = this.#spill.markDecisions(assembled.report.decisions);
    return decisions === assembled.report.decisions ? assembled : { ...assembled, report: { ...assembled.report, decisions } };
  }
}

/** The stored position of the first output message at or after `i` that came from the history. */
function firstOriginFrom(origin: ReadonlyArray<number | undefined>, i: number): number | undefined {
  for (let k = i; k < origin.length; k++) if (origin[k] !== undefined) return origin[k];
  return undefined;
}

function copyHit(hit: SearchHit): SearchHit {
  const { neighbours } = hit;
  return {
    ...hit,
    message: shallowCopy(hit.message),
    ...(neighbours ? { neighbours: { before: neighbours.before.map(shallowCopy), after: neighbours.after.map(shallowCopy) } } : {}),
  };
}
