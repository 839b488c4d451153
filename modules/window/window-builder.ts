/**
 * Turns a WindowPlan into the messages a provider receives, in this order:
 *
 * | position | messages                                                                          |
 * |----------|-----------------------------------------------------------------------------------|
 * | 1        | instructions (system, developer; not turn notes), stored order                    |
 * | 2        | the placeholder user message, when the plan needs one                             |
 * | 3        | kept units in unit order: critical units before the cut, the last turn's prompt, then every unit from `from` on; each unit as call, its results, its synthetic results; a turn as its notes, then its user message; hook notes are conversation and sit here, in stored order |
 * | 4        | request-only messages (`extraMessages`), as given                                 |
 *
 * By default every message is a fresh top-level object with fresh metadata (nested content is
 * shared with the stored, frozen message): a caller may change the window freely. With
 * `handOut: "frozen"` (the context modules) every message is the stored message's plain object
 * itself, deep-frozen (message-copy.ts frozenBody: O(1) once frozen), and only what the window
 * made or changed is new: no per-window copy. Costs O(window), plus O(history) for the decisions
 * when they are asked for.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryIndex, Member } from "./history-index.js";
import type { WindowPlan } from "./ladder.js";
import { frozenBody } from "./message-copy.js";
import { idOf, isTurnNote, resultIdsOf, shallowCopy } from "./message-shape.js";
import { omittedHistoryMessage } from "./repair.js";
import type { TokenLedger } from "./token-ledger.js";
import { windowMarkOf } from "./window-marks.js";
import type { DecisionReason, WindowDecision } from "./window-report.js";

const PLACEHOLDER = omittedHistoryMessage();

export interface BuiltWindow {
  readonly messages: Message[];
  /** Stored messages present in the window (whole, repaired or truncated). */
  readonly storedKept: number;
  readonly truncated: number;
  /** Call ids answered by synthetic results. */
  readonly interruptedCalls: string[];
  readonly firstKeptId: string | undefined;
  /** Stored index of each stored message in the window (window order), and of those sent truncated: O(window), for the window's record. */
  readonly sentStored: number[];
  readonly sentTruncated: number[];
  readonly decisions?: WindowDecision[];
}

export interface BuildInput {
  readonly index: HistoryIndex;
  readonly ledger: TokenLedger;
  readonly plan: WindowPlan;
  /** The cut (unit index): dropped units below it are `before-cut`, at or above it `older-in-turn`. */
  readonly cut: number;
  readonly extraMessages: readonly Message[];
  readonly explain: boolean;
  /** Shallow copies (the default), or the messages themselves (`assemble({ shared: true })`, shared-window.ts). */
  readonly copy?: boolean;
  /** "frozen": the messages' plain objects, deep-frozen, instead of copies (`assemble({ handOut: "frozen" })`); wins over `copy`. */
  readonly handOut?: "copies" | "frozen" | undefined;
}

export function placeholderMessage(): Message {
  return PLACEHOLDER;
}

export function buildWindow(input: BuildInput): BuiltWindow {
  const { index, plan, cut } = input;
  const copy = input.handOut === "frozen" ? frozenBody : input.copy === false ? (m: Message) => m : shallowCopy;
  const out: Message[] = [];
  let storedKept = 0;
  let truncated = 0;
  const interruptedCalls: string[] = [];
  let firstKeptId: string | undefined;
  const sentStored: number[] = [...index.instructions];
  const sentTruncated: number[] = [];

  for (const i of index.instructions) out.push(copy(index.stored[i]!));
  storedKept += index.instructions.length;
  if (plan.placeholder) out.push(copy(PLACEHOLDER));
  const emit = (u: number) => {
    const unit = index.units[u]!;
    for (const member of unit.emitted()) {
      const replaced = plan.replacements.get(member.message);
      const sent = replaced ?? member.message;
      if (firstKeptId === undefined && u >= cut && !member.synthetic) firstKeptId = idOf(sent);
      out.push(copy(sent));
      if (member.synthetic) interruptedCalls.push(...resultIdsOf(sent));
      else {
        storedKept++;
        sentStored.push(member.stored);
      }
      if (replaced) {
        truncated++;
        sentTruncated.push(member.stored);
      }
    }
  };
  forEachKeptUnit(index, plan, emit);
  for (const extra of input.extraMessages) out.push(copy(extra));
  const built = { messages: out, storedKept, truncated, interruptedCalls, firstKeptId, sentStored, sentTruncated };
  return input.explain ? { ...built, decisions: explainDecisions(input) } : built;
}

/** Kept units in unit order: critical units below `from`, the prompt, then [from, n). */
export function forEachKeptUnit(index: HistoryIndex, plan: WindowPlan, visit: (u: number) => void): void {
  const { from, prompt } = plan;
  let promptDone = prompt < 0 || prompt >= from;
  for (const u of index.criticalUnits) {
    if (u >= from) break;
    if (!promptDone && prompt < u) {
      visit(prompt);
      promptDone = true;
    }
    if (u === prompt) promptDone = true;
    visit(u);
  }
  if (!promptDone) visit(prompt);
  for (let u = from; u < index.units.length; u++) visit(u);
}

function explainDecisions(input: BuildInput): WindowDecision[] {
  const { index, ledger, plan, cut } = input;
  const stored = index.stored;
  const decisions: (WindowDecision | undefined)[] = new Array(stored.length);
  const extra: WindowDecision[] = [];
  const kept = new Set<number>();
  forEachKeptUnit(index, plan, (u) => kept.add(u));

  for (const i of index.instructions) {
    decisions[i] = decision(i, stored[i]!, "kept", "instruction", ledger.counter.countMessage(stored[i]!));
  }
  if (plan.placeholder) extra.push(decision(-1, PLACEHOLDER, "synthetic", "placeholder", ledger.counter.countMessage(PLACEHOLDER)));
  index.units.forEach((unit, u) => {
    const isKept = kept.has(u);
    const tokens = isKept ? ledger.memberTokens(u) : undefined;
    unit.emitted().forEach((member, k) => {
      if (member.synthetic) {
        if (isKept) extra.push(decision(-1, member.message, "synthetic", "interrupted", tokens![k]));
        return;
      }
      decisions[member.stored] = isKept
        ? keptDecision(member, unit.critical, u === plan.prompt, plan, ledger, tokens![k]!)
        : decision(member.stored, stored[member.stored]!, "dropped", droppedReason(index, u, cut), undefined, orphansIn(member));
    });
  });
  for (const i of index.orphanAt) {
    decisions[i] ??= decision(i, stored[i]!, "dropped", "orphan-result");
  }
  for (const m of input.extraMessages) extra.push(decision(-1, m, "kept", "request-only", ledger.counter.countMessage(m)));
  return [...(decisions.filter(Boolean) as WindowDecision[]), ...extra];
}

function keptDecision(member: Member, critical: boolean, isPrompt: boolean, plan: WindowPlan, ledger: TokenLedger, tokens: number): WindowDecision {
  const replaced = plan.replacements.get(member.message);
  const reason: DecisionReason = replaced ? (isPrompt ? (member.message.role === "user" ? "prompt-cap" : "note-cap") : "result-cap") : critical ? "critical" : "in-window";
  const sent = replaced ?? member.message;
  const cost = replaced ? ledger.counter.countMessage(replaced) : tokens;
  return decision(member.stored, sent, replaced ? "truncated" : "kept", reason, cost, orphansIn(member));
}

function droppedReason(index: HistoryIndex, u: number, cut: number): DecisionReason {
  if (u < (index.turnStarts[0] ?? 0)) return "before-first-turn";
  if (u < cut) return "before-cut";
  return "older-in-turn";
}

function orphansIn(member: Member): number | undefined {
  return windowMarkOf(member.message)?.repaired?.orphanResults;
}

function decision(
  index: number,
  message: Message,
  action: WindowDecision["action"],
  reason: DecisionReason,
  tokens?: number,
  orphanResultsRemoved?: number,
): WindowDecision {
  return {
    index,
    id: idOf(message),
    role: message.role,
    action,
    reason,
    ...(tokens === undefined ? {} : { tokens }),
    ...(orphanResultsRemoved === undefined ? {} : { orphanResultsRemoved }),
    ...(isTurnNote(message) ? { note: true as const } : {}),
  };
}
