/**
 * Recall's output (recall.ts), kept as a MessageLog between requests: a request
 * re-examines only the input positions whose fate may have changed, and the log is rewritten
 * only from the first output message that actually differs — so the assembler after it (and the
 * provider's prompt cache) sees the same prefix, and a request whose history only grew under the
 * same plan costs O(new messages).
 *
 * | input position                       | kept? (a `Selection` that is not `all`)            | as            |
 * |--------------------------------------|----------------------------------------------------|---------------|
 * | an instruction                       | always                                             | itself        |
 * | an orphan result                     | at or after `recentStart`                          | itself        |
 * | a member of a critical unit          | always                                             | itself, or marked when recalled |
 * | a member of a unit ≥ `from`          | always (the recent part)                           | itself        |
 * | a member of a unit in `older`        | always (a prompt, a recalled unit)                 | marked when in `recalled` (metadata.recalled, the same copy every time) |
 * | anything else                        | dropped                                            |               |
 *
 * Where a request starts re-examining: the first new (or rewritten) input position, the first
 * position of the lowest unit the split changed, and — when the selection changed — the lowest of
 * both `recentStart`s and the first positions of the units that entered or left `older` or
 * `recalled`. Below the recent part only instructions, critical units and `older` can be kept: they
 * are taken from the index's lists, not by scanning (O(window), never O(history)).
 */
import type { Message } from "@amplifier-ts/contracts";
import { lowerBound } from "@amplifier-ts/window";
import { INSTRUCTION, ORPHAN, type Dropped, type HistoryUnits } from "./history-units.js";
import { MessageLog } from "./message-log.js";

export interface Selection {
  /** Every input message as it is (the whole history fits). */
  readonly all: boolean;
  /** Units from here on are kept (the recent part). */
  readonly from: number;
  /** First input position of the recent part: orphans from here on are kept. */
  readonly recentStart: number;
  /** Units before `from` kept as well. */
  readonly older: readonly number[];
  /** Units brought back by the search: their messages are marked copies. */
  readonly recalled: ReadonlySet<number>;
}

export const KEEP_ALL: Selection = { all: true, from: 0, recentStart: 0, older: [], recalled: new Set() };

export interface OutputExplain {
  readonly dropped: Dropped;
  /** A recalled message in the output (the input message and its position). */
  readonly recalled: (message: Message, position: number) => void;
}

export class RecallOutput {
  readonly log = new MessageLog();
  /** Input position of each output message (ascending). */
  readonly #positions: number[] = [];
  /** Output indices that hold a marked copy (ascending). */
  readonly #markedAt: number[] = [];
  #selection: Selection | undefined;
  #older: ReadonlySet<number> = new Set();
  #units: HistoryUnits | undefined;
  #inputLength = 0;
  /** Input message → its marked copy: the same copy every time, so consecutive outputs extend each other. */
  readonly #marked = new WeakMap<Message, Message>();

  /** True when the output is not exactly the input (same objects, same order). */
  get changed(): boolean {
    return this.log.length !== this.#inputLength || this.#markedAt.length > 0;
  }

  /** Forget everything: the next update re-examines every position (the log is still rewritten only where it differs). */
  reset(): void {
    this.#selection = undefined;
    this.#units = undefined;
  }

  /**
   * Brings the log up to date. `unchanged`: input positions below it hold the same messages as at
   * the last update; `units` is the split of the whole input, just synced (its `lowestChanged`
   * names what that sync changed). `explain` asks for a full pass that reports every position.
   */
  update(units: HistoryUnits, selection: Selection, unchanged: number, explain?: OutputExplain): void {
    const messages = units.messages;
    const n = messages.length;
    const first = (u: number) => (u < units.length ? units.units[u]!.firstStored : n);
    const previous = this.#selection;
    let q = unchanged;
    if (previous === undefined || units !== this.#units || explain) q = 0;
    else {
      if (Number.isFinite(units.lowestChanged)) q = Math.min(q, first(units.lowestChanged));
      if (!sameSelection(previous, selection)) q = Math.min(q, lowestDifference(previous, selection, first));
    }
    if (selection.older !== previous?.older) this.#older = new Set(selection.older);
    this.#selection = selection;
    this.#units = units;
    this.#inputLength = n;
    q = Math.min(q, n);

    // Re-emit from q, comparing with what the log holds: it is truncated at the first difference only.
    const positions = this.#positions;
    const log = this.log;
    let k = lowerBound(positions, q);
    let diverged = false;
    const emit = (p: number, message: Message) => {
      if (!diverged) {
        if (k < log.length && positions[k] === p && log.items[k] === message) {
          k++;
          return;
        }
        diverged = true;
        this.#truncate(k);
      }
      if (message !== messages[p]) this.#markedAt.push(log.length);
      positions.push(p);
      log.append(message);
    };
    if (selection.all) {
      for (let i = q; i < n; i++) emit(i, messages[i]!);
    } else {
      let start = q;
      if (!explain && q < selection.recentStart) {
        start = selection.recentStart;
        for (const p of this.#keptBelow(units, q, start)) emit(p, this.#as(units, p, selection));
      }
      const older = this.#older;
      for (let i = start; i < n; i++) {
        const u = units.unitAt(i);
        const keep = u === INSTRUCTION || (u === ORPHAN ? i >= selection.recentStart : units.units[u]!.critical || u >= selection.from || older.has(u));
        if (keep) emit(i, this.#as(units, i, selection));
        else explain?.dropped(messages[i]!, i);
      }
    }
    if (!diverged) this.#truncate(k);
    if (explain && selection.recalled.size > 0) {
      for (let j = 0; j < positions.length; j++) {
        const p = positions[j]!;
        const u = units.unitAt(p);
        if (u >= 0 && selection.recalled.has(u)) explain.recalled(messages[p]!, p);
      }
    }
  }

  /** Input positions in [from, to) that a selection which is not `all` keeps: instructions, critical units, `older` — ascending. */
  #keptBelow(units: HistoryUnits, from: number, to: number): number[] {
    const out: number[] = [];
    const { instructions, criticalUnits } = units.index;
    for (let j = lowerBound(instructions, from); j < instructions.length && instructions[j]! < to; j++) out.push(instructions[j]!);
    const add = (u: number) => {
      for (const member of units.units[u]!.members) if (member.stored >= from && member.stored < to) out.push(member.stored);
    };
    for (const u of criticalUnits) {
      if (units.units[u]!.firstStored >= to) break;
      add(u);
    }
    for (const u of this.#older) if (u < units.length && !units.units[u]!.critical && units.units[u]!.firstStored < to) add(u);
    return out.sort((a, b) => a - b);
  }

  /** The message at input position `p` as the output holds it: a marked copy when its unit was recalled. */
  #as(units: HistoryUnits, p: number, selection: Selection): Message {
    const message = units.messages[p]!;
    const u = units.unitAt(p);
    if (u < 0 || !selection.recalled.has(u)) return message;
    let copy = this.#marked.get(message);
    if (!copy) this.#marked.set(message, (copy = { ...message, metadata: { ...message.metadata, recalled: true } } as Message));
    return copy;
  }

  #truncate(k: number): void {
    this.#positions.length = Math.min(this.#positions.length, k);
    this.log.truncate(k);
    const marked = this.#markedAt;
    while (marked.length > 0 && marked[marked.length - 1]! >= k) marked.pop();
  }
}

function sameSelection(a: Selection, b: Selection): boolean {
  return a.all === b.all && a.from === b.from && a.recentStart === b.recentStart && a.older === b.older && a.recalled === b.recalled;
}

/** The lowest input position whose fate may differ between the two selections. */
function lowestDifference(a: Selection, b: Selection, first: (u: number) => number): number {
  if (a.all !== b.all) return 0;
  let q = Number.POSITIVE_INFINITY;
  if (a.from !== b.from || a.recentStart !== b.recentStart) q = Math.min(a.recentStart, b.recentStart, first(Math.min(a.from, b.from)));
  if (a.older !== b.older) for (const u of [...a.older, ...b.older]) q = Math.min(q, first(u));
  if (a.recalled !== b.recalled) for (const u of [...a.recalled, ...b.recalled]) q = Math.min(q, first(u));
  return q;
}
