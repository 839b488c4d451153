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
 *
 * Thinking policy (`thinking`, default `drop-older`): an assistant message of an OLDER turn (a unit
 * before the last user turn) is sent without its thinking and redacted_thinking blocks — all of
 * them or none, never some: the providers need thinking only until its tool turn completes
 * (Anthropic strips earlier turns' thinking from the context itself; Responses drops reasoning
 * items of earlier turns), and sending it costs tokens. A message that holds nothing but thinking
 * is sent as it is. `keep` sends every block as stored. The turn in progress and the rest of the
 * last turn always keep their thinking byte-identical. The saving is counted (`thinkingDropped`).
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryIndex, Member } from "./history-index.js";
import type { WindowPlan } from "./ladder.js";
import { freezeDeep, frozenBody } from "./message-copy.js";
import type { ContentBlock } from "@amplifier-ts/contracts";
import { messageBody } from "@amplifier-ts/contracts";
import { idOf, isTurnNote, resultIdsOf, shallowCopy } from "./message-shape.js";
import { omittedHistoryMessage } from "./repair.js";
import type { TokenLedger } from "./token-ledger.js";
import { windowMarkOf, withMark } from "./window-marks.js";
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
  /** Older turns' assistant messages sent without their thinking, and the tokens that saved. */
  readonly thinkingDropped: { readonly messages: number; readonly tokens: number };
  readonly decisions?: WindowDecision[];
}

/** What the window does with thinking blocks of turns before the last one (see the header). */
export type ThinkingPolicy = "drop-older" | "keep";
export const thinkingPolicies: readonly ThinkingPolicy[] = ["drop-older", "keep"];

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
  /** Default `drop-older`. */
  readonly thinking?: ThinkingPolicy;
}

export function placeholderMessage(): Message {
  return PLACEHOLDER;
}

export function buildWindow(input: BuildInput): BuiltWindow {
  const { index, plan, cut } = input;
  const frozen = input.handOut === "frozen";
  const copy = frozen ? frozenBody : input.copy === false ? (m: Message) => m : shallowCopy;
  const out: Message[] = [];
  let storedKept = 0;
  let truncated = 0;
  const interruptedCalls: string[] = [];
  let firstKeptId: string | undefined;
  const sentStored: number[] = [...index.instructions];
  const sentTruncated: number[] = [];
  const thinkingDropped = { messages: 0, tokens: 0 };
  const lastTurn = (input.thinking ?? "drop-older") === "drop-older" ? (index.turnStarts.at(-1) ?? -1) : -1;

  for (const i of index.instructions) out.push(copy(index.stored[i]!));
  storedKept += index.instructions.length;
  if (plan.placeholder) out.push(copy(PLACEHOLDER));
  const emit = (u: number) => {
    const unit = index.units[u]!;
    for (const member of unit.emitted()) {
      const replaced = plan.replacements.get(member.message);
      let sent = replaced ?? member.message;
      if (firstKeptId === undefined && u >= cut && !member.synthetic) firstKeptId = idOf(sent);
      const stripped = u < lastTurn && !member.critical ? withoutThinking(sent, input.ledger, frozen || input.copy === false) : undefined;
      if (stripped) {
        sent = stripped.message;
        thinkingDropped.messages++;
        thinkingDropped.tokens += stripped.saved;
        out.push(sent);
      } else out.push(copy(sent));
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
  const built = { messages: out, storedKept, truncated, interruptedCalls, firstKeptId, sentStored, sentTruncated, thinkingDropped };
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
  const lastTurn = (input.thinking ?? "drop-older") === "drop-older" ? (index.turnStarts.at(-1) ?? -1) : -1;

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
        ? keptDecision(member, unit.critical, u === plan.prompt, plan, ledger, tokens![k]!, u < lastTurn)
        : decision(member.stored, stored[member.stored]!, "dropped", droppedReason(index, u, cut), undefined, orphansIn(member));
    });
  });
  for (const i of index.orphanAt) {
    decisions[i] ??= decision(i, stored[i]!, "dropped", "orphan-result");
  }
  for (const m of input.extraMessages) extra.push(decision(-1, m, "kept", "request-only", ledger.counter.countMessage(m)));
  return [...(decisions.filter(Boolean) as WindowDecision[]), ...extra];
}

function keptDecision(member: Member, critical: boolean, isPrompt: boolean, plan: WindowPlan, ledger: TokenLedger, tokens: number, olderTurn: boolean): WindowDecision {
  const replaced = plan.replacements.get(member.message);
  const reason: DecisionReason = replaced ? (isPrompt ? (member.message.role === "user" ? "prompt-cap" : "note-cap") : "result-cap") : critical ? "critical" : "in-window";
  let sent = replaced ?? member.message;
  let cost = replaced ? ledger.counter.countMessage(replaced) : tokens;
  // As emitted: an older turn's message without its thinking (the policy `drop-older`) costs less.
  const stripped = olderTurn && !member.critical ? withoutThinking(sent, ledger) : undefined;
  if (stripped) {
    sent = stripped.message;
    cost -= stripped.saved;
  }
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

/**
 * An assistant message without its thinking and redacted_thinking blocks — all of them, never some
 * — and the tokens that saves, counted as the window counts messages (the message with them minus
 * the message without them: their tokens and their share of the block framing). Undefined when it
 * has none, or nothing besides them.
 */
function withoutThinking(message: Message, ledger: TokenLedger, memo = false): Stripped | undefined {
  // Read from the plain object behind a held or lazy message (one proxy read, not one per field).
  const body = messageBody(message);
  if (body.role !== "assistant" || !Array.isArray(body.content)) return undefined;
  if (!memo) return stripThinking(message, body, ledger);
  // Handed out frozen (the context modules): a stored message never changes (contracts/CONTEXT.md
  // "Copies"), so it is stripped and counted once, not once per window; the stripped copy is
  // shared by the windows, hence frozen. Per counter: the saving is its count. The same for shared
  // windows (`copy: false`, fitWindow's: the messages are the fitter's conversions, which it keeps
  // by the caller's item and never changes): the same object on every window is what lets the
  // fitter write O(new) items a call (window-fitter.ts #write follows windows by identity) — a new
  // one per call made it write the window again from the first such message, and over LangChain
  // rebuild an AIMessage for each (issue 27). A message given a new content is stripped again.
  const counter = ledger.counter;
  const hit = STRIPPED.get(body);
  if (hit !== undefined && hit.counter === counter && hit.content === body.content) return hit.stripped;
  const stripped = stripThinking(message, body, ledger);
  if (stripped) freezeDeep(stripped.message);
  STRIPPED.set(body, { counter, content: body.content, stripped });
  return stripped;
}

interface Stripped {
  readonly message: Message;
  readonly saved: number;
}

/** withoutThinking's results in the frozen hand-out, by the message's plain body (weak: a packed body or a dropped message goes with it). */
const STRIPPED = new WeakMap<object, { counter: TokenLedger["counter"]; content: Message["content"]; stripped: Stripped | undefined }>();

/** `message` without its thinking blocks (read from `body`, its plain object; counted as `message`, so the count cache is the window's). */
function stripThinking(message: Message, body: Message, ledger: TokenLedger): Stripped | undefined {
  const content = body.content as readonly ContentBlock[];
  let thinking = 0;
  for (const block of content) if (block?.type === "thinking" || block?.type === "redacted_thinking") thinking++;
  if (thinking === 0) return undefined;
  const rest = content.filter((block) => block?.type !== "thinking" && block?.type !== "redacted_thinking");
  if (rest.length === 0 && !body.tool_calls?.length) return undefined;
  const stripped = withMark({ ...shallowCopy(body), content: rest }, { thinkingDropped: { blocks: thinking } });
  return { message: stripped, saved: ledger.counter.countMessage(message) - ledger.counter.countMessage(stripped) };
}
