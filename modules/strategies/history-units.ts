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
import { HistoryIndex, type Unit } from "@amplifier-ts/window";

export const INSTRUCTION = -1;
export const ORPHAN = -2;

export class HistoryUnits {
  readonly messages: readonly Message[];
  readonly index: HistoryIndex;
  /** Input position → unit index, or INSTRUCTION / ORPHAN. */
  readonly unitOf: Int32Array;

  constructor(messages: readonly Message[], from?: { index: HistoryIndex; unitOf: Int32Array; length: number }) {
    // A snapshot of the references (callers may push to their array later): extend() compares against it.
    this.messages = messages.slice();
    if (from) {
      // Extension of an earlier split of a prefix of `messages` (HistoryUnits.extend): append only the new ones.
      this.index = from.index;
      this.unitOf = new Int32Array(messages.length).fill(ORPHAN);
      this.unitOf.set(from.unitOf.subarray(0, from.length));
    } else {
      this.index = new HistoryIndex();
      this.unitOf = new Int32Array(messages.length).fill(ORPHAN);
    }
    const start = from?.length ?? 0;
    const unitsBefore = this.index.units.length;
    const changed = new Set<number>();
    this.index.onUnitChanged = (u) => {
      if (u < unitsBefore) changed.add(u);
    };
    for (let i = start; i < messages.length; i++) this.index.append(messages[i]!);
    this.index.onUnitChanged = () => {};
    const instructions = this.index.instructions;
    for (let k = instructions.length - 1; k >= 0 && instructions[k]! >= start; k--) this.unitOf[instructions[k]!] = INSTRUCTION;
    const assign = (u: number) => {
      for (const member of this.index.units[u]!.members) if (member.stored >= start) this.unitOf[member.stored] = u;
    };
    for (const u of changed) assign(u);
    for (let u = unitsBefore; u < this.index.units.length; u++) assign(u);
  }

  /**
   * The split of `messages`, reusing `previous` when `messages` extends its input (the same
   * objects, in the same order, then new ones): O(new messages) instead of O(history) — what a
   * strategy keeps between requests of a growing history. `previous` must not be used afterwards
   * (its index is taken over and grows).
   */
  static extend(previous: HistoryUnits | undefined, messages: readonly Message[]): HistoryUnits {
    if (previous === undefined || messages.length < previous.messages.length) return new HistoryUnits(messages);
    const old = previous.messages;
    for (let i = old.length - 1; i >= 0; i--) if (messages[i] !== old[i]) return new HistoryUnits(messages);
    return new HistoryUnits(messages, { index: previous.index, unitOf: previous.unitOf, length: old.length });
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

  /** The unit whose first message has this metadata.id. */
  unitWithFirstId(id: string): number | undefined {
    for (let u = this.length - 1; u >= 0; u--) if (this.messages[this.units[u]!.firstStored]?.metadata?.id === id) return u;
    return undefined;
  }

  firstIdOf(u: number): string | undefined {
    const id = this.messages[this.units[u]?.firstStored ?? -1]?.metadata?.id;
    return typeof id === "string" ? id : undefined;
  }

  /** The latest turn unit before `u`, if any. */
  turnBefore(u: number): number | undefined {
    const starts = this.index.turnStarts;
    let found: number | undefined;
    for (const t of starts) {
      if (t >= u) break;
      found = t;
    }
    return found;
  }

  /**
   * The messages kept by a cut at unit `cut`: instructions, critical units, the units from `cut`
   * on, orphans at or after the cut's first message, and — when the cut does not start at a user
   * turn — the prompt of the turn it falls in (so the window still opens with that user turn),
   * even when the cut keeps nothing else.
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
    return this.select(keepUnit, this.units[cut]?.firstStored ?? this.messages.length, onDropped);
  }

  /** Instructions, the units flagged in `keepUnit`, orphans at positions ≥ `orphansFrom`; input order. */
  select(keepUnit: Uint8Array, orphansFrom: number, onDropped?: Dropped): Message[] {
    const out: Message[] = [];
    this.messages.forEach((m, i) => {
      const u = this.unitOf[i]!;
      const keep = u === INSTRUCTION || (u === ORPHAN ? i >= orphansFrom : keepUnit[u] === 1);
      if (keep) out.push(m);
      else onDropped?.(m, i);
    });
    return out;
  }
}

export type Dropped = (message: Message, position: number) => void;

/** metadata.id or a positional stand-in (explain needs some id). */
export function messageId(message: Message, position: number): string {
  const id = message.metadata?.id;
  return typeof id === "string" ? id : `#${position}`;
}
