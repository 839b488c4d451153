/**
 * The record of one window (contracts/window-record.ts): what this manager sent — budget, model,
 * tool definitions with their tokens, the token split — and why each stored message was in it or
 * not, as runs. Built after every request at O(window + runs): from the assembler's `sentStored`
 * (the stored indices it sent) when nobody asked for explain, from the per-message explanation
 * when someone did (it is exact, and already paid for).
 *
 * | without explain, a stored message …        | run                                                |
 * |--------------------------------------------|----------------------------------------------------|
 * | sent truncated                              | truncated / window / prompt-cap (a user message), note-cap (a turn note), else result-cap |
 * | sent, an instruction                        | kept / window / instruction                       |
 * | sent, marked critical                       | kept / window / critical                          |
 * | sent, otherwise                             | kept / window / in-window (a tool group kept for a critical member included) |
 * | not sent, before the cut                    | dropped / window / before-cut (before-first-turn when nothing was cut) |
 * | not sent, at or after the cut               | dropped / window / older-in-turn (ladder) or orphan-result |
 * | (a pipeline ran) not returned by it         | dropped / its strategy (the one that changed something, else "pipeline") / removed-by-pipeline |
 */
import { idOf, isCritical, isInstruction, isTurnNote, messageBody, type Message, type ToolDefinition, type ToolRecord, type WindowRecord, type WindowRun, type WindowRunDecision } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/tokens";
import type { WindowReport } from "@amplifier-ts/window";
import type { MessageExplanation } from "./window-explanation.js";

export interface WindowRecordInput {
  history: readonly Message[];
  report: WindowReport;
  model: string;
  counter: TokenCounter;
  tools: readonly ToolDefinition[] | undefined;
  strategies: readonly string[];
  explanation: readonly MessageExplanation[] | undefined;
  /** With a pipeline: the stored index of each message of its output (undefined for one it made, a summary). */
  pipelineOrigin?: ReadonlyArray<number | undefined>;
  /** Stored indices of spilled messages (spilled-history.ts): sent as an excerpt, recorded truncated by "spill". */
  spilled?: ReadonlySet<number>;
  /**
   * What each stored message of `history` is (instruction, critical, …), remembered by position
   * from one record to the next; only for a history array whose positions never change (the
   * stored history: appended to, or replaced by another array).
   */
  kinds?: StoredKinds;
}

const LAZY_FIGURES = ["windowTokens", "historyTokens"] as const;

function isLazy(report: WindowReport, key: (typeof LAZY_FIGURES)[number]): boolean {
  return Object.getOwnPropertyDescriptor(report, key)?.get !== undefined;
}

/** The reason codes of a sent message (see the table above), by kind. */
const KEPT_REASON = ["instruction", "critical", "in-window"] as const;
const INSTRUCTION = 0;
const CRITICAL = 1;
const PLAIN = 2;

/**
 * The kind of each stored message a window sent (instruction, critical, plain), by position, for
 * one history array at a time: a window sends mostly what the previous one sent, so a record
 * reads each stored message's shape once, not once per window (O(new) reads, one array load each).
 */
export class StoredKinds {
  #history: readonly Message[] | undefined;
  #kinds: number[] = [];

  kindAt(history: readonly Message[], at: number): number {
    if (history !== this.#history) {
      this.#history = history;
      this.#kinds = [];
    }
    let kind = this.#kinds[at];
    if (kind === undefined) {
      const message = messageBody(history[at]!);
      kind = kindOf(message);
      this.#kinds[at] = kind;
    }
    return kind;
  }
}

export function windowRecord(input: WindowRecordInput, tools: ToolRecord[]): WindowRecord {
  const { history, report } = input;
  const record: WindowRecord = {
    at: new Date().toISOString(),
    history: history.length,
    model: input.model,
    encoding: input.counter.encoding,
    budget: report.budget,
    windowMessages: report.windowMessages,
    windowTokens: isLazy(report, "windowTokens") ? 0 : report.windowTokens,
    historyTokens: isLazy(report, "historyTokens") ? 0 : report.historyTokens,
    instructionTokens: report.instructionTokens,
    toolTokens: report.toolTokens,
    tools,
    strategies: [...input.strategies],
    runs: input.explanation ? runsOfExplanation(input.explanation) : runsOfSent(input),
  };
  // A window whose newest messages were priced by bounds (window-assembler.ts, issue 31 item 3) has its
  // token figures counted when first read: the record reads them then too, not now.
  for (const key of LAZY_FIGURES) {
    if (!isLazy(report, key)) continue;
    Object.defineProperty(record, key, { get: () => report[key], enumerable: true, configurable: true });
  }
  const lastId = history.length > 0 ? idOf(history[history.length - 1]!) : undefined;
  if (typeof lastId === "string") record.lastId = lastId;
  return record;
}

/**
 * Each tool definition with what it costs alone — counted once per definitions array (a session
 * hands the same array request after request).
 */
export class ToolRecords {
  #tools: readonly ToolDefinition[] | undefined;
  #encoding = "";
  #records: ToolRecord[] = [];

  of(tools: readonly ToolDefinition[] | undefined, counter: TokenCounter): ToolRecord[] {
    if (tools === undefined || tools.length === 0) return [];
    if (tools !== this.#tools || counter.encoding !== this.#encoding) {
      this.#records = tools.map((tool) => ({ name: String(tool.function?.name ?? "?"), tokens: counter.countTools([tool]) }));
      this.#tools = tools;
      this.#encoding = counter.encoding;
    }
    return this.#records;
  }
}

// ---- private helpers ----

function runsOfExplanation(explanation: readonly MessageExplanation[]): WindowRun[] {
  const runs: WindowRun[] = [];
  for (const e of explanation) push(runs, e.index, e.decision, e.strategy, e.code ?? e.reason);
  return runs;
}

function runsOfSent(input: WindowRecordInput): WindowRun[] {
  const { history, report, pipelineOrigin } = input;
  const sent = sentInOrder(report.sentStored, report.sentTruncated, pipelineOrigin);
  const cut = pipelineOrigin === undefined ? report.cutIndex : Math.min(history.length, nextOrigin(pipelineOrigin, report.cutIndex) ?? history.length);
  // The stored positions the pipeline returned, as ascending ranges: the gaps are walked in order
  // with one cursor, a range at a time (O(ranges) per gap; one linear pass over the output to find them).
  const returned = pipelineOrigin === undefined ? undefined : returnedRanges(pipelineOrigin);
  const pipelineBy = input.strategies.length === 2 ? input.strategies[0]! : "pipeline";
  const droppedBefore = report.cutReason === "fits" ? "before-first-turn" : "before-cut";
  const droppedAfter = report.cutReason === "ladder" ? "older-in-turn" : "orphan-result";
  const runs: WindowRun[] = [];
  const spilled = input.spilled;
  // Walk only where something changes: the sent indices, ascending, and the gaps between them.
  let next = 0;
  for (let k = 0; k < sent.at.length; k++) {
    const at = sent.at[k]!;
    if (at > next) dropGap(runs, next, at, cut, returned, pipelineBy, droppedBefore, droppedAfter);
    if (spilled?.has(at)) push(runs, at, "truncated", "spill", "spilled");
    // Read from the plain object behind a held or lazy message (one proxy read, not one per field); a sent message is parsed already.
    else if (sent.truncated?.has(at)) push(runs, at, "truncated", "window", truncatedReason(messageBody(history[at]!)));
    else push(runs, at, "kept", "window", KEPT_REASON[input.kinds ? input.kinds.kindAt(history, at) : kindOf(messageBody(history[at]!))]!);
    next = at + 1;
  }
  if (next < history.length) dropGap(runs, next, history.length, cut, returned, pipelineBy, droppedBefore, droppedAfter);
  return runs;
}

/**
 * Stored indices the window sent, ascending, and which of them it sent truncated; only sent
 * messages are listed (O(window)). The assembler sends in stored order, so this is one pass; a
 * pipeline's output in another order (or one stored message sent twice: the later decision wins)
 * is sorted.
 */
function sentInOrder(sentStored: readonly number[], sentTruncated: readonly number[], pipelineOrigin: ReadonlyArray<number | undefined> | undefined): { at: number[]; truncated: Set<number> | undefined } {
  const truncatedOut = sentTruncated.length === 0 ? undefined : new Set(sentTruncated);
  const at: number[] = [];
  let truncated: Set<number> | undefined;
  let ascending = true;
  for (const i of sentStored) {
    const position = pipelineOrigin === undefined ? i : pipelineOrigin[i];
    if (position === undefined) continue;
    if (at.length > 0 && position <= at[at.length - 1]!) ascending = false;
    at.push(position);
    if (truncatedOut?.has(i)) (truncated ??= new Set()).add(position);
  }
  if (ascending) return { at, truncated };
  // The later decision wins for a stored message sent twice.
  const decided = new Map<number, boolean>();
  for (const i of sentStored) {
    const position = pipelineOrigin === undefined ? i : pipelineOrigin[i];
    if (position === undefined) continue;
    decided.set(position, truncatedOut?.has(i) === true);
  }
  const sorted = [...decided.keys()].sort((a, b) => a - b);
  const truncatedSorted = new Set(sorted.filter((p) => decided.get(p)));
  return { at: sorted, truncated: truncatedSorted.size === 0 ? undefined : truncatedSorted };
}

/** The assembler's reason code for a message sent truncated (see the table above). */
function truncatedReason(message: Message): string {
  return message.role === "user" ? "prompt-cap" : isTurnNote(message) ? "note-cap" : "result-cap";
}

/** What a message sent whole is, for its reason code (KEPT_REASON). */
function kindOf(message: Message): number {
  return isInstruction(message) ? INSTRUCTION : isCritical(message) ? CRITICAL : PLAIN;
}

/**
 * The pipeline's returned stored positions as ascending, disjoint ranges [from[k], to[k]) of
 * consecutive positions, and the cursor of the gap walk (gaps come in ascending order). A
 * pipeline keeps stored order, so this is one pass over its output with no sort; an output in
 * another order (or with a position twice) is sorted first.
 */
interface Returned {
  readonly from: number[];
  readonly to: number[];
  next: number;
}

function returnedRanges(origin: ReadonlyArray<number | undefined>): Returned {
  const from: number[] = [];
  const to: number[] = [];
  let last = -1;
  for (let i = 0; i < origin.length; i++) {
    const p = origin[i];
    if (p === undefined) continue;
    if (p <= last) return rangesOf([...new Set(origin.filter((q): q is number => q !== undefined))].sort((a, b) => a - b));
    if (p === last + 1 && to.length > 0) to[to.length - 1] = p + 1;
    else {
      from.push(p);
      to.push(p + 1);
    }
    last = p;
  }
  return { from, to, next: 0 };
}

function rangesOf(sorted: readonly number[]): Returned {
  const from: number[] = [];
  const to: number[] = [];
  for (const p of sorted) {
    if (to.length > 0 && to[to.length - 1] === p) to[to.length - 1] = p + 1;
    else {
      from.push(p);
      to.push(p + 1);
    }
  }
  return { from, to, next: 0 };
}

/**
 * Stored messages [from, to) not sent: split at the cut; with a pipeline, the ones it did not
 * return are its (whole ranges between the returned ranges: O(ranges), not O(gap)).
 */
function dropGap(runs: WindowRun[], from: number, to: number, cut: number, returned: Returned | undefined, pipelineBy: string, before: string, after: string): void {
  if (returned !== undefined) {
    const starts = returned.from;
    const ends = returned.to;
    while (returned.next < starts.length && ends[returned.next]! <= from) returned.next++;
    let i = from;
    while (returned.next < starts.length && starts[returned.next]! < to) {
      const r0 = Math.max(starts[returned.next]!, from);
      const r1 = Math.min(ends[returned.next]!, to);
      if (r0 > i) pushRange(runs, i, r0, "dropped", pipelineBy, "removed-by-pipeline");
      // Returned by the pipeline but not sent: the window's, split at the cut.
      if (r0 < Math.min(cut, r1)) pushRange(runs, r0, Math.min(cut, r1), "dropped", "window", before);
      if (Math.max(cut, r0) < r1) pushRange(runs, Math.max(cut, r0), r1, "dropped", "window", after);
      i = r1;
      // A range that goes on past this gap (a sent position inside it) serves the next gap too.
      if (ends[returned.next]! > to) break;
      returned.next++;
    }
    if (i < to) pushRange(runs, i, to, "dropped", pipelineBy, "removed-by-pipeline");
    return;
  }
  if (from < Math.min(cut, to)) pushRange(runs, from, Math.min(cut, to), "dropped", "window", before);
  if (Math.max(cut, from) < to) pushRange(runs, Math.max(cut, from), to, "dropped", "window", after);
}

function push(runs: WindowRun[], at: number, decision: WindowRunDecision, by: string, why: string): void {
  pushRange(runs, at, at + 1, decision, by, why);
}

function pushRange(runs: WindowRun[], from: number, to: number, decision: WindowRunDecision, by: string, why: string): void {
  const last = runs.at(-1);
  if (last !== undefined && last[1] === from && last[2] === decision && last[3] === by && last[4] === why) last[1] = to;
  else runs.push([from, to, decision, by, why]);
}

/** The stored index of the first pipeline output message at or after `i` that came from the history. */
function nextOrigin(origin: ReadonlyArray<number | undefined>, i: number): number | undefined {
  for (let k = i; k < origin.length; k++) if (origin[k] !== undefined) return origin[k];
  return undefined;
}
