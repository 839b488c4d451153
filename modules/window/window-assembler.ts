/**
 * WindowAssembler: the incremental engine behind every built-in context module. It holds an
 * index of the stored history (history-index.ts) and, per token counter, lazily counted token
 * sums (token-ledger.ts); assemble() turns them into a provider-valid window for a budget.
 *
 * Invariants of every window (contracts/WINDOW.md; checked by testing/window-invariants.ts):
 *
 * | # | invariant                                                                                  |
 * |---|--------------------------------------------------------------------------------------------|
 * | 1 | Σ countMessage(window) + replyPriming + countTools(tools) ≤ budget                         |
 * | 2 | instructions (system, developer — not hook turn notes) kept, first, in stored order; critical messages kept verbatim; a critical call keeps its results, a critical result its call |
 * | 3 | every result directly follows its call; every call has all its results (real or synthetic), both tool styles |
 * | 4 | stored order kept (turn notes included), except that results sit right after their call; placeholder after the instructions; request-only messages last |
 * | 5 | the stored history is never changed; windows are new arrays of fresh copies, or of the stored messages frozen (`handOut: "frozen"`) |
 * | 6 | where the history has a user turn, the first non-instruction message is a user turn, or the notes that open it |
 *
 * Turn notes (system/developer with `metadata.scope: "turn"`: a hook's injection after the session
 * started) are conversation, not instructions: units like any other (history-index.ts), so they
 * are counted and cut with their turn instead of growing the fixed part every turn.
 * If instructions + critical messages (at their minimum) + request-only messages + priming + tools
 * exceed the budget: BUDGET_TOO_SMALL with the numbers.
 *
 * Cost (the performance contract): append() is O(1) amortized. assemble() is O(new units +
 * window) — the ledger counts only what a decision needs, from the newest unit down; the cut is
 * found on prefix sums; nothing scans the history (except `explain`, which accounts for it all).
 *
 * Ownership: append() and reset() keep the messages BY REFERENCE and never change them; the
 * caller must not change them afterwards either (the context modules deep-freeze what they store).
 */
import type { Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { decideCut, type CutDecision } from "./cut-policy.js";
import { HistoryIndex } from "./history-index.js";
import { climbLadder, needsPlaceholder, type StickyDrop, type WindowPlan } from "./ladder.js";
import { TokenLedger, type BoundedLedger, type WindowCounter } from "./token-ledger.js";
import { SharedWindow } from "./shared-window.js";
import { buildWindow, placeholderMessage, thinkingPolicies, type ThinkingPolicy } from "./window-builder.js";
import type { WindowReport } from "./window-report.js";

export interface AssembleOptions {
  /** Tokens the whole request may use (resolveBudget). */
  budget: number;
  counter: WindowCounter;
  /** Tool definitions sent with the request; they count against the budget. */
  tools?: readonly ToolDefinition[] | undefined;
  /** No compaction while the history's request is ≤ this share of the budget (default 0.9). */
  compactThreshold?: number | undefined;
  /** A new cut brings the window down to this share (default 0.7); ≤ compactThreshold. */
  compactTarget?: number | undefined;
  /** Request-only messages, appended at the end of the window and counted; never indexed. */
  extraMessages?: readonly Message[] | undefined;
  /** Account for every stored message in `report.decisions` (costs O(history)). */
  explain?: boolean | undefined;
  /**
   * Thinking of turns before the last one: `drop-older` (default) sends those assistant messages
   * without their thinking blocks (all or none; `report.thinkingDropped` counts the saving),
   * `keep` sends them as stored (window-builder.ts). The last turn's thinking is always sent.
   */
  thinking?: ThinkingPolicy | undefined;
  /** The ladder caps tool results no lower than this before dropping units (default min(512, ⌊budget/64⌋), ≥ 1). */
  minResultTokens?: number | undefined;
  /**
   * The window's messages are the stored objects themselves, not copies, and the window is extended
   * from the last one while its plan keeps its shape: O(new units) a call (shared-window.ts). For
   * callers that do not hand the messages out as they are (fitWindow); they must not mutate them.
   */
  shared?: boolean | undefined;
  /**
   * What the window's messages are: fresh shallow copies ("copies", the default: a caller may
   * change them), or the stored messages' plain objects deep-frozen ("frozen": no copy per window;
   * only what the window made or changed is new — the context modules, contracts/CONTEXT.md
   * "Copies"). Ignored with `shared`.
   */
  handOut?: "copies" | "frozen" | undefined;
}

export interface AssembledWindow {
  messages: Message[];
  report: WindowReport;
}

export const DEFAULT_COMPACT_THRESHOLD = 0.9;
export const DEFAULT_COMPACT_TARGET = 0.7;
/** Ledgers kept for this many counters (models) at once; the least recently used is dropped. */
const MAX_LEDGERS = 4;

export class WindowAssembler {
  #index = new HistoryIndex();
  #ledgers = new Map<WindowCounter, TokenLedger>();
  /** The previous window's cut (unit index), for hysteresis; undefined while nothing is cut. */
  #previousCut: number | undefined;
  #sticky: StickyDrop | undefined;
  /** The last `shared` window, extended by the next (shared-window.ts). */
  #shared = new SharedWindow();

  constructor(messages: readonly Message[] = []) {
    this.reset(messages);
  }

  /** Number of stored messages indexed. */
  get length(): number {
    return this.#index.length;
  }

  /** Index one more stored message. O(1) amortized. */
  append(message: Message): void {
    this.#index.append(message);
  }

  /**
   * Call ids of the orphan results — tool messages or tool_result blocks answering no open call
   * (unknown, or already answered) — stored at or after `position`. O(log n + those).
   */
  orphansFrom(position: number): string[] {
    return this.#index.orphansFrom(position);
  }

  /**
   * Forget the stored messages from `position` on (a compaction pipeline rewrote its output
   * there; the caller appends the new ones): O(what is removed + the next window's recount). The
   * previous cut is kept while its unit remains, so the window's prefix holds.
   */
  truncate(position: number): void {
    if (position >= this.#index.length) return;
    this.#index.truncate(position);
    for (const ledger of this.#ledgers.values()) ledger.afterTruncate();
    this.#shared.forget();
    if (this.#previousCut !== undefined && this.#previousCut >= this.#index.units.length) this.#previousCut = undefined;
    this.#sticky = undefined;
  }

  /**
   * What the units stored at or after `position` send in place of stored messages — synthetic
   * results of interrupted calls, results repaired for pairing — and windows count like any
   * message (the unit just below a cut included): a holder that carries counts to the next
   * process (context-manager carriedTokenCounts) carries theirs too. O(those units).
   */
  copiesFrom(position: number): Message[] {
    const { units, stored } = this.#index;
    const copies: Message[] = [];
    for (let u = units.length - 1; u >= 0 && units[u]!.firstStored >= position; u--) {
      for (const member of units[u]!.emitted()) if (member.synthetic || member.message !== stored[member.stored]) copies.push(member.message);
    }
    return copies;
  }

  /** How many leading stored messages are the very objects `messages` starts with (reference comparison, O(that many)). */
  sharedPrefix(messages: readonly Message[]): number {
    const stored = this.#index.stored;
    const n = Math.min(stored.length, messages.length);
    let i = 0;
    while (i < n && stored[i] === messages[i]) i++;
    return i;
  }

  /** Replace the whole history (setMessages, clearRun, resume). Forgets counts and the cut. */
  reset(messages: readonly Message[]): void {
    this.#index = new HistoryIndex();
    this.#shared = new SharedWindow();
    this.#index.onUnitChanged = (u) => {
      for (const ledger of this.#ledgers.values()) ledger.invalidateFrom(u);
      this.#shared.changed(u);
    };
    this.#ledgers = new Map();
    this.#previousCut = undefined;
    this.#sticky = undefined;
    for (const message of messages) this.#index.append(message);
  }

  assemble(options: AssembleOptions): AssembledWindow {
    const started = performance.now();
    const { budget, counter, tools, extraMessages = [], explain = false } = options;
    const threshold = options.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD;
    const target = options.compactTarget ?? DEFAULT_COMPACT_TARGET;
    checkOptions(budget, threshold, target, counter, options.minResultTokens);
    if (options.thinking !== undefined && !thinkingPolicies.includes(options.thinking)) {
      throw createError("INVALID_ARGUMENT", "assemble() thinking is a thinking policy", { module: "context/window", expected: thinkingPolicies.join(" | "), given: options.thinking });
    }
    const index = this.#index;
    const ledger = this.#ledgerFor(counter);
    const n = index.units.length;

    const instructionTokens = ledger.instructionTokens;
    let extraTokens = 0;
    for (const m of extraMessages) extraTokens += counter.countMessage(m);
    const toolTokens = tools?.length ? counter.countTools(tools) : 0;
    const fixedTokens = instructionTokens + extraTokens + counter.replyPriming + toolTokens;
    const criticalTokens = ledger.criticalTokens();
    const placeholderTokens = counter.countMessage(placeholderMessage());
    const pinnedPlaceholder = needsPlaceholder(index, n, -1) ? placeholderTokens : 0;
    if (fixedTokens + criticalTokens + pinnedPlaceholder > budget) {
      this.#checkMinimum({ budget, ledger, fixedTokens, instructionTokens, criticalTokens, extraTokens, toolTokens, pinnedPlaceholder });
    }

    const cutPoints = index.turnStarts.length > 0 ? index.turnStarts : n > 0 ? [0] : [];
    const cutInput = {
      cutPoints,
      previous: this.#previousCut,
      budget,
      threshold,
      target,
      fixedTokens: fixedTokens + criticalTokens + pinnedPlaceholder,
      // A pinned placeholder is already in the fixed tokens; else a cut inside a turn needs one.
      placeholderAt: (c: number) => (pinnedPlaceholder === 0 && needsPlaceholder(index, c, -1) ? placeholderTokens : 0),
    };
    // Counting off the hot path: the units appended since the last window are priced by upper
    // bounds (bytes bound tokens) when the decision those bounds give is the one exact counts
    // would give — the whole history fits (rule 1), or the previous cut is kept (rule 2) while the
    // counted units alone rule out rule 1. Anything else (a cut moves, the ladder) is decided on
    // exact counts. Windows are the same either way; what was priced is counted later (settle(),
    // idle work) or when a report's figure is read.
    // At most the newest PRICED_UNITS wait for their count (see TokenLedger.settleAllBut).
    if (!explain && ledger.pending > PRICED_UNITS) ledger.settleAllBut(PRICED_UNITS);
    const bounded = explain ? undefined : ledger.boundedView();
    let decision: CutDecision | undefined;
    if (bounded) {
      const tried = decideCut({ ...cutInput, ledger: bounded });
      const first = cutPoints[0] ?? 0;
      if (tried.reason === "fits" || (tried.reason === "kept" && ledger.countedExceeds(threshold * budget - cutInput.fixedTokens, first))) decision = tried;
    }
    const priced = decision !== undefined ? bounded : undefined;
    decision ??= decideCut({ ...cutInput, ledger });
    const { cut, reason } = decision;
    let plan: WindowPlan;
    if (reason === "ladder") {
      const climbed = climbLadder({
        index,
        ledger,
        cut,
        budget,
        threshold,
        target,
        floor: options.minResultTokens ?? defaultFloor(budget),
        fixedTokens,
        placeholderTokens,
        sticky: this.#sticky,
      });
      if ("unfit" in climbed) {
        const inProgress = climbed.inProgressMinimumTokens > 0;
        throw budgetTooSmall(
          inProgress
            ? `The turn in progress does not fit: the smallest window that keeps the last prompt and the latest tool calls with their thinking and results needs ${climbed.required} tokens (the turn in progress ${climbed.inProgressMinimumTokens}); the budget is ${budget}`
            : `The last prompt does not fit: the smallest window that keeps it needs ${climbed.required} tokens; the budget is ${budget}`,
          { budget, ledger, instructionTokens, criticalTokens, extraTokens, toolTokens, criticalMinimumTokens: this.#criticalMinimum(ledger) },
          {
            promptMinimumTokens: climbed.promptMinimumTokens,
            ...(inProgress ? { inProgressMinimumTokens: climbed.inProgressMinimumTokens } : {}),
            required: climbed.required,
            hint: inProgress ? "raise the budget, or return shorter tool results (the latest tool calls and their thinking are sent whole)" : "raise the budget, or inject shorter notes and prompts",
          },
        );
      }
      plan = climbed;
    } else {
      const placeholder = needsPlaceholder(index, cut, -1);
      const tokens = fixedTokens + criticalTokens + (priced ?? ledger).suffixTokens(cut) + (placeholder ? placeholderTokens : 0);
      plan = { from: cut, prompt: -1, replacements: new Map(), tokens, placeholder };
    }
    if (plan.tokens > budget) {
      // Unreachable when the minimum fits (ladder step 5 costs exactly that); never overflow silently.
      throw createError("BUDGET_TOO_SMALL", "The window could not be made to fit the budget", {
        module: "context/window",
        budget,
        required: plan.tokens,
      });
    }
    this.#previousCut = reason === "fits" ? undefined : cut;
    this.#sticky = plan.sticky;

    const shared = options.shared === true;
    const thinking = options.thinking ?? "drop-older";
    // The shared window hands out the stored objects; older thinking to drop needs the builder.
    const olderThinking = thinking === "drop-older" && (index.turnStarts.at(-1) ?? 0) > plan.from;
    const built =
      shared && !explain && extraMessages.length === 0 && plan.prompt < 0 && plan.replacements.size === 0 && !olderThinking
        ? { ...this.#shared.build(index, plan, cut), truncated: 0, sentTruncated: [] as number[], thinkingDropped: NO_THINKING_DROPPED, decisions: undefined }
        : buildWindow({ index, ledger, plan, cut, extraMessages, explain, copy: !shared, thinking, ...(shared ? {} : { handOut: options.handOut }) });
    const storedKept = built.sentStored.length;
    const overhead = counter.replyPriming + toolTokens;
    // At least the newest unit is counted, so there is an average to extrapolate from.
    const newest = Math.max(0, index.units.length - 1);
    // Priced: the figure waits for its first read (below); the ledger's `base` would count what was priced.
    const counted = priced ? undefined : Math.min(ledger.base, newest);
    const historyTokens = counted === undefined ? { tokens: 0, exact: false } : this.#historyTokens(counted, () => ledger.suffixTokens(counted), instructionTokens, criticalTokens, overhead)();
    const cutMessage = index.units[cut]?.firstStored;
    const orphanResults = index.orphansFrom(cutMessage ?? index.length);
    const report: WindowReport = {
      historyMessages: index.length,
      historyTokens: historyTokens.tokens,
      historyTokensExact: historyTokens.exact,
      windowMessages: built.messages.length,
      // The plan counted older turns' thinking; what is sent is without it.
      windowTokens: plan.tokens - built.thinkingDropped.tokens,
      removed: index.length - storedKept,
      truncated: built.truncated,
      repaired: {
        syntheticResults: built.interruptedCalls.length,
        interruptedCalls: built.interruptedCalls,
        orphansDropped: orphanResults.length,
        orphanResults,
        placeholder: plan.placeholder,
      },
      compacted: cut > (cutPoints[0] ?? 0) || plan.level !== undefined,
      cutIndex: cutMessage ?? index.length,
      firstKeptId: built.firstKeptId,
      cutReason: reason,
      ladder: plan.level,
      budget,
      instructionTokens,
      toolTokens,
      sentStored: built.sentStored,
      sentTruncated: built.sentTruncated,
      thinkingDropped: built.thinkingDropped,
      durationMs: performance.now() - started,
      ...(built.decisions ? { decisions: built.decisions } : {}),
    };
    if (priced) {
      // The plan's figure is an upper bound: the report's are exact, counted when first read.
      const exactSuffix = priced.exactSuffix(cut);
      const planFixed = plan.tokens - priced.suffixTokens(cut);
      const thinkingSaved = built.thinkingDropped.tokens;
      // Everything the figures depend on is taken now; only the pending messages' counts wait.
      const base = Math.min(ledger.lowest, newest);
      const historyLater = this.#historyTokens(base, priced.exactSuffix(base), instructionTokens, criticalTokens, overhead);
      let history: { tokens: number; exact: boolean } | undefined;
      const historyNow = () => (history ??= historyLater());
      Object.defineProperties(report, {
        windowTokens: { get: () => planFixed + exactSuffix() - thinkingSaved, enumerable: true },
        historyTokens: { get: () => historyNow().tokens, enumerable: true },
        historyTokensExact: { get: () => historyNow().exact, enumerable: true },
      });
    }
    return { messages: built.messages, report };
  }

  /** Throws BUDGET_TOO_SMALL when even the smallest possible window does not fit. */
  #checkMinimum(a: {
    budget: number;
    ledger: TokenLedger;
    fixedTokens: number;
    instructionTokens: number;
    criticalTokens: number;
    extraTokens: number;
    toolTokens: number;
    pinnedPlaceholder: number;
  }): void {
    const criticalMinimumTokens = this.#criticalMinimum(a.ledger);
    const required = a.fixedTokens + criticalMinimumTokens + a.pinnedPlaceholder;
    if (required <= a.budget) return;
    throw budgetTooSmall(
      `System and critical messages need ${required} tokens; the budget is ${a.budget}`,
      { ...a, criticalMinimumTokens },
      { required, hint: "raise the budget, or mark fewer messages critical" },
    );
  }

  /** Σ tokens of the critical units at their smallest. */
  #criticalMinimum(ledger: TokenLedger): number {
    let total = 0;
    for (const u of this.#index.criticalUnits) total += ledger.minimumTokens(u);
    return total;
  }

  /**
   * Request tokens the whole history would need: the counted units from `base` on exactly
   * (`suffix`), the rest extrapolated from their average per message. The state is taken now;
   * `suffix` is called when the figure is read (a priced window counts its pending messages then).
   */
  #historyTokens(base: number, suffix: () => number, instructions: number, critical: number, overhead: number): () => { tokens: number; exact: boolean } {
    const index = this.#index;
    const below = base === 0 ? 0 : index.units[base]!.firstStored;
    const countedMessages = Math.max(1, index.length - below);
    return () => {
      const counted = instructions + critical + suffix() + overhead;
      if (base === 0) return { tokens: counted, exact: true };
      return { tokens: counted + Math.ceil(((counted - overhead) / countedMessages) * below), exact: false };
    };
  }

  /** Counts what the last windows priced by bounds (see assemble): idle work, so the next window needs no bound. */
  settle(): void {
    for (const ledger of this.#ledgers.values()) ledger.settle();
  }

  /** Units priced by bounds and not counted yet, over every counter's ledger. */
  get pending(): number {
    let n = 0;
    for (const ledger of this.#ledgers.values()) n += ledger.pending;
    return n;
  }

  #ledgerFor(counter: WindowCounter): TokenLedger {
    let ledger = this.#ledgers.get(counter);
    if (ledger) {
      this.#ledgers.delete(counter);
    } else {
      ledger = new TokenLedger(counter, this.#index);
      if (this.#ledgers.size >= MAX_LEDGERS) this.#ledgers.delete(this.#ledgers.keys().next().value!);
    }
    this.#ledgers.set(counter, ledger);
    return ledger;
  }
}

/** BUDGET_TOO_SMALL with the numbers of the window's parts. */
function budgetTooSmall(
  message: string,
  a: { budget: number; ledger: TokenLedger; instructionTokens: number; criticalTokens: number; criticalMinimumTokens: number; extraTokens: number; toolTokens: number },
  more: { required: number; hint: string; promptMinimumTokens?: number; inProgressMinimumTokens?: number },
): Error {
  return createError("BUDGET_TOO_SMALL", message, {
    module: "context/window",
    budget: a.budget,
    systemTokens: a.instructionTokens,
    criticalTokens: a.criticalTokens,
    criticalMinimumTokens: a.criticalMinimumTokens,
    extraTokens: a.extraTokens,
    toolTokens: a.toolTokens,
    replyPriming: a.ledger.counter.replyPriming,
    ...(more.promptMinimumTokens === undefined ? {} : { promptMinimumTokens: more.promptMinimumTokens }),
    ...(more.inProgressMinimumTokens === undefined ? {} : { inProgressMinimumTokens: more.inProgressMinimumTokens }),
    required: more.required,
    hint: more.hint,
  });
}

/** Units a window may price by bounds instead of counting (the newest ones; a turn adds one or two). */
const PRICED_UNITS = 2;

const NO_THINKING_DROPPED = Object.freeze({ messages: 0, tokens: 0 });

function defaultFloor(budget: number): number {
  return Math.max(1, Math.min(512, Math.floor(budget / 64)));
}

function checkOptions(budget: unknown, threshold: unknown, target: unknown, counter: unknown, minResultTokens: unknown): void {
  if (typeof budget !== "number" || !Number.isFinite(budget) || budget <= 0) {
    throw createError("INVALID_BUDGET", undefined, { module: "context/window", expected: "a positive finite number", given: budget });
  }
  const share = (v: unknown) => typeof v === "number" && v > 0 && v <= 1;
  if (!share(threshold) || !share(target) || (target as number) > (threshold as number)) {
    throw createError("INVALID_ARGUMENT", "compactTarget and compactThreshold must satisfy 0 < target ≤ threshold ≤ 1", {
      module: "context/window",
      path: "compactTarget",
      expected: "0 < compactTarget ≤ compactThreshold ≤ 1",
      given: { compactThreshold: threshold, compactTarget: target },
    });
  }
  if (minResultTokens !== undefined && !(typeof minResultTokens === "number" && Number.isInteger(minResultTokens) && minResultTokens >= 1)) {
    throw createError("INVALID_ARGUMENT", "minResultTokens must be a whole number ≥ 1", {
      module: "context/window",
      path: "minResultTokens",
      expected: "an integer ≥ 1",
      given: minResultTokens,
    });
  }
  const c = counter as Partial<WindowCounter> | null;
  if (typeof c !== "object" || c === null || typeof c.countMessage !== "function" || typeof c.countText !== "function" || typeof c.countTools !== "function" || typeof c.replyPriming !== "number") {
    throw createError("INVALID_ARGUMENT", "assemble() needs a token counter", {
      module: "context/window",
      path: "counter",
      expected: "{ countMessage, countText, countTools, replyPriming, encoding }",
      given: counter,
    });
  }
}
