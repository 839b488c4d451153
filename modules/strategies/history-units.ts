/**
 * The units a strategy keeps or drops whole — the same split as the window assembler's
 * (modules/window/history-index.ts), so a strategy and the assembler never disagree on
 * which result belongs to which call:
 *
 * | unit    | members                                                          | a cut may start here |
 * |---------|------------------------------------------------------------------|----------------------|
 * | `turn`  | the hook notes stored right before it, then a user message with content besides tool_result blocks | yes |
 * | `group` | an assistant message with tool calls + every result answering it  | yes (the prompt of its turn is kept) |
 * | `plain` | a run of hook notes, or any other message                         | yes (idem)           |
 *
 * Instructions (system, developer) belong to no unit: every strategy keeps them. Hook turn notes
 * (system/developer with `metadata.scope: "turn"`) are conversation: they are in units, count
 * toward a strategy's limits and are cut with their turn (a turn's user message is its LAST
 * member, `Unit.prompt`; its first member may be a note). An orphan result
 * (its call is absent) belongs to no unit either: it is kept when it sits at or after a cut (the
 * assembler drops it from the window) and dropped with what is before the cut.
 *
 * Strategies output the INPUT message objects (never the index's repaired copies), in input order.
 */
import type { Message } from "@amplifier-ts/contracts";
import { HistoryIndex, lowerBound, type Unit } from "@amplifier-ts/window";
import { LogCursor, type MessageSource } from "./message-log.js";

export const INSTRUCTION = -1;
export const ORPHAN = -2;

export class HistoryUnits {
  readonly index: HistoryIndex;
  /** The split's own snapshot of the references (callers may push to their array later). */
  readonly #messages: Message[] = [];
  /** Input position → unit index, or INSTRUCTION / ORPHAN; capacity ≥ length. */
  #unitOf = new Int32Array(16);
  #view: Int32Array | undefined;
  /** Lowest pre-existing unit whose members (or critical flag) the last `grow` / `truncate` changed or removed; Infinity when none (may equal the unit count when only whole units went). */
  lowestChanged = Number.POSITIVE_INFINITY;
  #touched = -1;

  constructor(messages: readonly Message[] = []) {
    this.index = new HistoryIndex();
    this.index.onUnitChanged = (u) => {
      this.#touched = u;
      if (u < this.lowestChanged) this.lowestChanged = u;
    };
    this.grow(messages);
  }

  /** The input positions split so far. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** Input position → unit index, or INSTRUCTION / ORPHAN (a view of exactly `messages.length` entries). */
  get unitOf(): Int32Array {
    if (this.#view?.length !== this.#messages.length) this.#view = this.#unitOf.subarray(0, this.#messages.length);
    return this.#view;
  }

  /** The unit of input position `i` (INSTRUCTION / ORPHAN for those). */
  unitAt(i: number): number {
    return this.#unitOf[i]!;
  }

  /**
   * Appends `messages[start..]` (start = the positions split so far): O(new messages).
   * `lowestChanged` then names the lowest earlier unit that gained a member or became critical.
   */
  grow(messages: readonly Message[], start = this.#messages.length, keepChanges = false): void {
    if (!keepChanges) this.lowestChanged = Number.POSITIVE_INFINITY;
    const index = this.index;
    for (let i = start; i < messages.length; i++) {
      const message = messages[i]!;
      const position = this.#messages.length;
      this.#messages.push(message);
      if (position >= this.#unitOf.length) {
        const grown = new Int32Array(this.#unitOf.length * 2);
        grown.set(this.#unitOf);
        this.#unitOf = grown;
        this.#view = undefined;
      }
      const unitsBefore = index.units.length;
      const instructionsBefore = index.instructions.length;
      this.#touched = -1;
      index.append(message);
      let u: number;
      if (index.units.length > unitsBefore) u = index.units.length - 1;
      else if (this.#touched >= 0) u = this.#touched;
      else if (index.instructions.length > instructionsBefore) u = INSTRUCTION;
      else u = ORPHAN;
      this.#unitOf[position] = u;
    }
  }

  /**
   * Forgets the input positions from `position` on (HistoryIndex.truncate): O(what is removed).
   * `lowestChanged` then names the lowest remaining unit that lost a member.
   */
  truncate(position: number): void {
    this.lowestChanged = Number.POSITIVE_INFINITY;
    if (position >= this.#messages.length) return;
    this.index.truncate(position);
    this.#messages.length = position;
    this.#view = undefined;
  }

  /**
   * The split of `messages`, reusing `previous` when `messages` extends its input (the same
   * objects, in the same order, then new ones): O(new messages) after one O(n) reference
   * comparison. `previous` must not be used afterwards (it is grown in place and returned).
   */
  static extend(previous: HistoryUnits | undefined, messages: readonly Message[]): HistoryUnits {
    if (previous === undefined || messages.length < previous.messages.length) return new HistoryUnits(messages);
    const old = previous.messages;
    for (let i = old.length - 1; i >= 0; i--) if (messages[i] !== old[i]) return new HistoryUnits(messages);
    previous.grow(messages);
    return previous;
  }

  get units(): readonly Unit[] {
    return this.index.units;
  }

  get length(): number {
    return this.index.units.length;
  }

  /** Input positions of a unit's stored members. */
  positions(u: number): number[] {
    return this.units[u]!.members.filter((m) => m.stored >= 0).map((m) => m.stored);
  }

  /** Stored members of a unit (what counts as "messages" for maxMessages). */
  size(u: number): number {
    let n = 0;
    for (const m of this.units[u]!.members) if (m.stored >= 0) n++;
    return n;
  }

  /** The unit whose first message has this metadata.id (`hint`: where it was last time, checked first: O(1) while the split only grows). */
  unitWithFirstId(id: string, hint?: number): number | undefined {
    if (hint !== undefined && hint < this.length && this.firstIdOf(hint) === id && this.#isLastWithFirstId(id, hint)) return hint;
    for (let u = this.length - 1; u >= 0; u--) if (this.messages[this.units[u]!.firstStored]?.metadata?.id === id) return u;
    return undefined;
  }

  /** No later unit starts with this id (ids may repeat after a clear(); the scan above returns the latest). Later units are few when the hint is recent. */
  #isLastWithFirstId(id: string, u: number): boolean {
    for (let v = this.length - 1; v > u; v--) if (this.messages[this.units[v]!.firstStored]?.metadata?.id === id) return false;
    return true;
  }

  firstIdOf(u: number): string | undefined {
    const id = this.messages[this.units[u]?.firstStored ?? -1]?.metadata?.id;
    return typeof id === "string" ? id : undefined;
  }

  /** The latest turn unit before `u`, if any. */
  turnBefore(u: number): number | undefined {
    const starts = this.index.turnStarts;
    const k = lowerBound(starts, u);
    return k > 0 ? starts[k - 1] : undefined;
  }

  /**
   * The messages kept by a cut at unit `cut`: instructions, critical units, the units from `cut`
   * on, orphans at or after the cut's first message, the turn in progress, and — when the cut
   * does not start at a user turn — the prompt of the turn it falls in (so the window still opens
   * with that user turn), even when the cut keeps nothing else.
   */
  keepFrom(cut: number, onDropped?: Dropped): Message[] {
    const keepUnit = new Uint8Array(this.length);
    for (let u = 0; u < this.length; u++) {
      const keep = this.units[u]!.critical || u >= cut;
      keepUnit[u] = keep ? 1 : 0;
    }
    // The last turn's prompt is kept even when nothing else is: a window without the current
    // prompt is not a valid request (contracts/WINDOW.md; the assembler truncates it to fit).
    if (this.units[cut]?.kind !== "turn") {
      const prompt = this.turnBefore(Math.min(cut, this.length));
      if (prompt !== undefined) keepUnit[prompt] = 1;
    }
    // The turn in progress (the latest tool calls, their thinking, their results) likewise.
    const inProgress = this.index.inProgressGroup;
    if (inProgress >= 0) keepUnit[inProgress] = 1;
    return this.select(keepUnit, this.units[cut]?.firstStored ?? this.messages.length, onDropped);
  }

  /** Instructions, the units flagged in `keepUnit`, orphans at positions ≥ `orphansFrom`; input order. */
  select(keepUnit: Uint8Array, orphansFrom: number, onDropped?: Dropped): Message[] {
    const out: Message[] = [];
    const messages = this.#messages;
    const unitOf = this.#unitOf;
    for (let i = 0; i < messages.length; i++) {
      const u = unitOf[i]!;
      const keep = u === INSTRUCTION || (u === ORPHAN ? i >= orphansFrom : keepUnit[u] === 1);
      if (keep) out.push(messages[i]!);
      else onDropped?.(messages[i]!, i);
    }
    return out;
  }
}

export type Dropped = (message: Message, position: number) => void;

/** metadata.id or a positional stand-in (explain needs some id). */
export function messageId(message: Message, position: number): string {
  const id = message.metadata?.id;
  return typeof id === "string" ? id : `#${position}`;
}

/**
 * A strategy's split of its input source, grown with the input (O(new messages)); rebuilt when
 * the input was rewritten below what was split (or for explain, which accounts for every message).
 */
export class SplitInput {
  readonly #cursor = new LogCursor();
  #units: HistoryUnits | undefined;

  /**
   * `from`: input positions below it are unchanged since the last sync (0 after a rebuild). A
   * rewrite of the input from position p rolls the split back to p (HistoryUnits.truncate) and
   * appends from there: O(what changed), not O(input).
   */
  sync(source: MessageSource, full = false): { units: HistoryUnits; from: number; rebuilt: boolean } {
    const from = this.#cursor.next(source);
    let units = this.#units;
    if (full || units === undefined || from === 0) {
      units = this.#units = new HistoryUnits(source.items);
      return { units, from: 0, rebuilt: true };
    }
    units.truncate(from);
    units.grow(source.items, from, true);
    return { units, from, rebuilt: false };
  }

  /** The next sync rebuilds. */
  reset(): void {
    this.#units = undefined;
    this.#cursor.reset();
  }
}
