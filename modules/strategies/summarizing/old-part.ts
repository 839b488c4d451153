/**
 * The split every summarizing strategy makes: a cut between units (history-units.ts) into the OLD
 * part, which is summarised, and the RECENT part, kept verbatim.
 *
 * - Instructions (system, developer — not hook turn notes) and critical units are never in the
 *   old part: they stay where they are, verbatim. Turn notes are conversation: an old turn's
 *   notes are summarised with it.
 * - A tool call and all its results are on the same side of the cut (units are whole).
 * - Orphan results before the cut are in the old part (their text may matter; no call to pair).
 * - The cut snaps forward to a user turn when there is one at or after it ("keep turns").
 */
import type { Message } from "@amplifier-ts/contracts";
import { isInstruction, lowerBound } from "@amplifier-ts/window";
import { HistoryUnits, INSTRUCTION, ORPHAN, messageId } from "../history-units.js";

export interface OldPart {
  /** Input positions of the old part, ascending. */
  readonly positions: number[];
  readonly messages: Message[];
  readonly ids: string[];
}

/** The first turn start at or after unit `cut`, else `cut`. */
export function snapToTurn(units: HistoryUnits, cut: number): number {
  const starts = units.index.turnStarts;
  const k = lowerBound(starts, cut);
  return k < starts.length ? starts[k]! : cut;
}

/** `cut`, but never past the last user turn: the question being answered is never summarised away. */
export function keepLastTurn(units: HistoryUnits, cut: number): number {
  const turns = units.index.turnStarts;
  const last = turns.length ? turns[turns.length - 1]! : units.length - 1;
  return Math.max(0, Math.min(cut, last));
}

/** `keep`: units before the cut kept verbatim all the same (the re-injection manifest, background.ts). */
export function oldPart(units: HistoryUnits, cut: number, keep?: ReadonlySet<number>): OldPart {
  const boundary = units.units[cut]?.firstStored ?? units.messages.length;
  const positions: number[] = [];
  units.messages.forEach((_, i) => {
    const u = units.unitOf[i]!;
    if (u === INSTRUCTION) return;
    if (u === ORPHAN ? i < boundary : u < cut && !units.units[u]!.critical && !keep?.has(u)) positions.push(i);
  });
  const messages = positions.map((i) => units.messages[i]!);
  return { positions, messages, ids: positions.map((i) => messageId(units.messages[i]!, i)) };
}

/** Token suffix sums per unit (critical units count 0: they are kept wherever the cut is). */
export function unitTokens(units: HistoryUnits, count: (m: Message) => number): (u: number) => number {
  return (u) => {
    let tokens = 0;
    for (const i of units.positions(u)) tokens += count(units.messages[i]!);
    return tokens;
  };
}

/**
 * `input` without the messages at `remove`, and `insert` (a summary) right after the instructions
 * the result starts with — the one documented place of a summary in a window (an instruction may
 * never follow it: instructions come first). Input order otherwise; the input is not changed.
 */
export function replaceRange(input: readonly Message[], remove: ReadonlySet<number>, insert: Message | undefined): Message[] {
  const out = input.filter((_, i) => !remove.has(i));
  if (insert !== undefined) insertAfterInstructions(out, insert);
  return out;
}

/**
 * Puts `message` after the leading run of instructions of `list` (in place). A hook turn note is
 * conversation, not an instruction: the summary goes before it (it stands for older messages).
 */
export function insertAfterInstructions(list: Message[], message: Message): void {
  let at = 0;
  while (at < list.length && isInstruction(list[at]!)) at++;
  list.splice(at, 0, message);
}

/**
 * The re-injection manifest over the units before `cut`: the newest unit calling one of
 * `plan` (the current plan) and the newest `results.last` units calling one of `results.tools`
 * (files read, results). Empty manifest → undefined. O(cut).
 */
export function manifestUnits(units: HistoryUnits, cut: number, manifest: { plan: readonly string[]; results?: { tools: readonly string[]; last: number } | undefined }): Set<number> | undefined {
  const { plan, results } = manifest;
  if (plan.length === 0 && !results) return undefined;
  const keep = new Set<number>();
  let planFound = plan.length === 0;
  let left = results?.last ?? 0;
  for (let u = Math.min(cut, units.length) - 1; u >= 0 && (!planFound || left > 0); u--) {
    const names = calledTools(units, u);
    if (names.length === 0) continue;
    if (!planFound && names.some((n) => plan.includes(n))) {
      keep.add(u);
      planFound = true;
    } else if (left > 0 && names.some((n) => results!.tools.includes(n))) {
      keep.add(u);
      left--;
    }
  }
  return keep;
}

function calledTools(units: HistoryUnits, u: number): string[] {
  const names: string[] = [];
  for (const i of units.positions(u)) {
    const m = units.messages[i]!;
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) names.push(call.function.name);
    if (Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_use") names.push(b.name);
  }
  return names;
}
