/**
 * The incremental index the window assembler cuts on: the stored history split into UNITS, the
 * smallest pieces a window keeps or drops whole. append() costs O(1) amortized; nothing here
 * ever rescans the history.
 *
 * | unit    | members (emit order)                                  | can start a window |
 * |---------|-------------------------------------------------------|--------------------|
 * | `turn`  | the run of non-critical notes stored directly before it (if any), then one user message with content besides tool_result blocks | yes (a cut point) |
 * | `group` | an assistant message with tool calls, then every stored result that answers it (in stored order), then synthetic results for calls still unanswered | no |
 * | `plain` | a run of consecutive non-critical notes, or any other single message (assistant text, a critical note, …) | no |
 *
 * Instructions (system, developer) are not units: they are listed apart and always kept. NOTES
 * (system/developer with `metadata.scope: "turn"`, message-shape.ts) are conversation: consecutive
 * non-critical notes share one `plain` unit, and when a user turn arrives right after that unit
 * the unit BECOMES the turn (notes first, then the user message; reported through
 * `onUnitChanged` and added to `turnStarts`): a prompt:submit hook stores its notes before the
 * prompt they belong to, so a cut at the turn keeps them and the first turn's notes are sent. In a
 * turn unit the user message is therefore the LAST member (`Unit.prompt`). A critical note is a
 * unit of its own (kept like any critical message; it never makes its turn critical). A
 * result pairs with the most recent earlier call of its id that has no result yet; a result that
 * finds none is an ORPHAN, dropped from every window (a user message loses just its orphan blocks).
 * Results are emitted right after their call even when other messages were stored in between:
 * those stay separate units, after the group — the one place where a window departs from stored
 * order, because providers require it.
 * A unit is critical when any member is; a unit that becomes critical (a critical result or user
 * message arrives) or gets a member later reports the change through `onUnitChanged`, so token
 * sums are refreshed from that unit on.
 */
import type { Message } from "@amplifier-ts/contracts";
import {
  callsOf,
  hasTurnContent,
  isCritical,
  isInstruction,
  isToolResultBlock,
  isTurnNote,
  resultIdsOf,
  type CallRef,
} from "./message-shape.js";
import { interruptedResults, stripResultBlocks } from "./repair.js";

export type UnitKind = "turn" | "group" | "plain";

export interface Member {
  /** Index in the stored history; -1 for a synthetic result. */
  readonly stored: number;
  /** What the window sends for it: the stored message, its repaired copy, or a synthetic result. */
  readonly message: Message;
  readonly critical: boolean;
  /** Carries tool results; such a member may be truncated when it is not critical. */
  readonly result: boolean;
  readonly synthetic: boolean;
}

export class Unit {
  /** Changes whenever a member is added or the unit becomes critical. */
  version = 0;
  critical: boolean;
  readonly members: Member[];
  /** A `plain` unit of non-critical notes only: the next note joins it, a user turn turns it into its turn. */
  #notes: boolean;
  /** Answered call ids (groups only; allocated on the first result). */
  #answered: Set<string> | undefined;
  #emitted: { version: number; members: readonly Member[]; synthetic: number } | undefined;

  #kind: UnitKind;

  constructor(
    kind: UnitKind,
    first: Member,
    /** The calls of a group, in order; empty for other kinds. */
    readonly calls: readonly CallRef[] = [],
    notes = false,
  ) {
    this.#kind = kind;
    this.members = [first];
    this.critical = first.critical;
    this.#notes = notes;
  }

  /** `plain` until a run of notes is joined by its user turn; then `turn` for good. */
  get kind(): UnitKind {
    return this.#kind;
  }

  /** A run of non-critical notes not yet joined by a user turn. */
  get isNoteRun(): boolean {
    return this.#notes;
  }

  /** The user message of a `turn` unit (its last member: the notes before it come first). */
  get prompt(): Member | undefined {
    return this.#kind === "turn" ? this.members[this.members.length - 1] : undefined;
  }

  /** @internal HistoryIndex only: one more note of the run, or the user turn that closes it. */
  joinRun(member: Member, turn: boolean): void {
    this.members.push(member);
    if (turn) {
      this.#kind = "turn";
      this.#notes = false;
    }
    if (member.critical) this.critical = true;
    this.version++;
  }

  /** Index in the stored history of the unit's first message. */
  get firstStored(): number {
    return this.members[0]!.stored;
  }

  isAnswered(id: string): boolean {
    return this.#answered?.has(id) === true;
  }

  /** The members a window emits: stored members, then a synthetic result per unanswered call. */
  emitted(): readonly Member[] {
    if (this.#emitted?.version !== this.version) {
      const missing = this.calls.filter((call) => !this.isAnswered(call.id));
      const synthetic = missing.length === 0 ? [] : interruptedResults(this.members[0]!.message, missing);
      const members = synthetic.length === 0 ? this.members : [...this.members, ...synthetic.map(syntheticMember)];
      this.#emitted = { version: this.version, members, synthetic: missing.length };
    }
    return this.#emitted.members;
  }

  /** Calls that get a synthetic result in the window. */
  get syntheticResults(): number {
    this.emitted();
    return this.#emitted!.synthetic;
  }

  /**
   * @internal HistoryIndex.truncate only: drops the members stored at or after `position` (never
   * the first); a turn that loses its prompt is a run of notes again. Returns whether it did.
   */
  dropFrom(position: number): boolean {
    let lostPrompt = false;
    while (this.members.length > 1 && this.members[this.members.length - 1]!.stored >= position) {
      this.members.pop();
      if (this.#kind === "turn") lostPrompt = true;
    }
    if (lostPrompt) {
      this.#kind = "plain";
      this.#notes = true;
    }
    this.critical = this.members.some((m) => m.critical);
    if (this.#answered !== undefined) {
      this.#answered = new Set();
      for (const m of this.members) if (m.result) for (const id of resultIdsOf(m.message)) this.#answered.add(id);
    }
    this.version++;
    return lostPrompt;
  }

  /** @internal HistoryIndex only. */
  addResult(member: Member, ids: readonly string[]): void {
    this.members.push(member);
    this.#answered ??= new Set();
    for (const id of ids) this.#answered.add(id);
    if (member.critical) this.critical = true;
    this.version++;
  }
}

export class HistoryIndex {
  /** The stored messages, by reference; never changed. */
  readonly stored: Message[] = [];
  /** Stored indices of system and developer messages. */
  readonly instructions: number[] = [];
  readonly units: Unit[] = [];
  /** Unit indices of `turn` units, ascending: the cut points. */
  readonly turnStarts: number[] = [];
  /** Unit indices of critical units, ascending. */
  readonly criticalUnits: number[] = [];
  /** Stored indices holding orphan results, ascending, and the call ids those results named. */
  readonly orphanAt: number[] = [];
  readonly orphanIds: (readonly string[])[] = [];
  /** Told the lowest unit whose members changed after it was appended. */
  onUnitChanged: (unit: number) => void = () => {};
  /** Call id → unit index of the most recent call with that id. */
  readonly #calls = new Map<string, number>();
  /** Group → the call ids whose earlier mapping it replaced (restored when truncate removes it); sparse. */
  readonly #replaced = new Map<number, Map<string, number>>();
  /** Members added to an existing unit: stored index (ascending) and unit, for truncate. */
  readonly #joinedAt: number[] = [];
  readonly #joinedUnit: number[] = [];

  get length(): number {
    return this.stored.length;
  }

  /**
   * The TURN IN PROGRESS: the latest `group` (an assistant message with tool calls, its thinking,
   * the results answering it) when nothing but notes (hook injections) follows it — no user turn,
   * no assistant message (which would have completed the tool turn). -1 when there is none. No
   * strategy and no window drops it: without it the model calls the tool again, and a provider
   * with extended thinking refuses the request (its signed thinking is needed until the tool turn
   * completes). O(notes after it).
   */
  get inProgressGroup(): number {
    for (let u = this.units.length - 1; u >= 0; u--) {
      const unit = this.units[u]!;
      if (unit.kind === "group") return u;
      if (unit.kind === "turn" || !isTurnNote(unit.members[0]!.message)) return -1;
    }
    return -1;
  }

  append(message: Message): void {
    const stored = this.stored.length;
    this.stored.push(message);
    if (isInstruction(message)) {
      this.instructions.push(stored);
      return;
    }
    const critical = isCritical(message);
    let sent: Message | undefined = message;
    // resultIdsOf, not the content: a lazily loaded message answers it from its facts, unparsed.
    if (message.role === "tool" || (message.role === "user" && resultIdsOf(message).length > 0)) {
      sent = this.#attachResults(message, stored, critical);
      if (sent === undefined) return;
    }
    const member: Member = { stored, message: sent, critical, result: false, synthetic: false };
    const calls = uniqueCalls(callsOf(sent));
    const index = this.units.length;
    if (calls.length > 0) {
      this.units.push(new Unit("group", member, calls));
      for (const call of calls) {
        const earlier = this.#calls.get(call.id);
        if (earlier !== undefined) {
          let replaced = this.#replaced.get(index);
          if (!replaced) this.#replaced.set(index, (replaced = new Map()));
          replaced.set(call.id, earlier);
        }
        this.#calls.set(call.id, index);
      }
    } else if (hasTurnContent(sent)) {
      const run = this.units[index - 1];
      if (run?.isNoteRun) {
        // The notes stored right before this prompt belong to its turn: the run becomes the turn.
        run.joinRun(member, true);
        this.#joined(stored, index - 1);
        this.turnStarts.push(index - 1);
        if (critical) insertSorted(this.criticalUnits, index - 1);
        this.onUnitChanged(index - 1);
        return;
      }
      this.units.push(new Unit("turn", member));
      this.turnStarts.push(index);
    } else if (isTurnNote(sent) && !critical) {
      const run = this.units[index - 1];
      if (run?.isNoteRun) {
        run.joinRun(member, false);
        this.#joined(stored, index - 1);
        this.onUnitChanged(index - 1);
        return;
      }
      this.units.push(new Unit("plain", member, [], true));
    } else {
      this.units.push(new Unit("plain", member));
    }
    if (critical) this.criticalUnits.push(index);
  }

  /**
   * Pairs the results `message` carries. Returns undefined when the message was consumed (added
   * to its group, or dropped as an orphan), else the message to index as an ordinary user message
   * (a user message whose tool_result blocks were all orphans but which has other content).
   */
  #attachResults(message: Message, stored: number, critical: boolean): Message | undefined {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      const unit = typeof id === "string" ? this.#openGroup(id) : undefined;
      if (unit === undefined) return this.#orphan(stored, [id ?? ""]);
      this.#addResult(unit, { stored, message, critical, result: true, synthetic: false }, [id!]);
      return undefined;
    }
    // Anthropic: the blocks go to the latest group they answer; blocks answering nothing are removed.
    let target: number | undefined;
    for (const id of resultIdsOf(message)) {
      const unit = this.#openGroup(id);
      if (unit !== undefined && (target === undefined || unit > target)) target = unit;
    }
    const taken = new Set<string>();
    const keep = (id: string) => {
      if (target === undefined || taken.has(id) || this.units[target]!.isAnswered(id) || this.#calls.get(id) !== target) return false;
      taken.add(id);
      return true;
    };
    const { message: sent, removed } = stripResultBlocks(message, keep);
    if (removed.length > 0) this.#orphan(stored, removed);
    if (target !== undefined && sent !== undefined) {
      this.#addResult(target, { stored, message: sent, critical, result: true, synthetic: false }, [...taken]);
      return undefined;
    }
    return sent;
  }

  #addResult(unit: number, member: Member, ids: readonly string[]): void {
    const group = this.units[unit]!;
    const becameCritical = member.critical && !group.critical;
    group.addResult(member, ids);
    this.#joined(member.stored, unit);
    if (becameCritical) insertSorted(this.criticalUnits, unit);
    this.onUnitChanged(unit);
  }

  #joined(stored: number, unit: number): void {
    this.#joinedAt.push(stored);
    this.#joinedUnit.push(unit);
  }

  /**
   * Forgets the stored messages from `position` on, as if they had never been appended: O(what is
   * removed). Units starting there go; earlier units lose their later members (a group its later
   * results, a turn its prompt — it is a run of notes again); call pairing, turn starts, critical
   * units, instructions and orphans are restored. `onUnitChanged` names the lowest unit that lost a
   * member, then the new unit count when whole units went. Appending the same messages again gives the index it had.
   */
  truncate(position: number): void {
    if (position >= this.stored.length) return;
    const affected = new Set<number>();
    const before = this.units.length;
    while (this.#joinedAt.length > 0 && this.#joinedAt[this.#joinedAt.length - 1]! >= position) {
      this.#joinedAt.pop();
      affected.add(this.#joinedUnit.pop()!);
    }
    while (this.units.length > 0 && this.units[this.units.length - 1]!.firstStored >= position) {
      const u = this.units.length - 1;
      const unit = this.units.pop()!;
      const replaced = this.#replaced.get(u);
      for (const call of unit.calls) {
        if (this.#calls.get(call.id) !== u) continue;
        const earlier = replaced?.get(call.id);
        if (earlier === undefined) this.#calls.delete(call.id);
        else this.#calls.set(call.id, earlier);
      }
      this.#replaced.delete(u);
    }
    const n = this.units.length;
    while (this.turnStarts.length > 0 && this.turnStarts[this.turnStarts.length - 1]! >= n) this.turnStarts.pop();
    while (this.criticalUnits.length > 0 && this.criticalUnits[this.criticalUnits.length - 1]! >= n) this.criticalUnits.pop();
    let lowest = Number.POSITIVE_INFINITY;
    for (const u of affected) {
      if (u >= n) continue;
      const unit = this.units[u]!;
      const wasCritical = unit.critical;
      if (unit.dropFrom(position)) {
        const at = lowerBound(this.turnStarts, u);
        if (this.turnStarts[at] === u) this.turnStarts.splice(at, 1);
      }
      if (wasCritical && !unit.critical) {
        const at = lowerBound(this.criticalUnits, u);
        if (this.criticalUnits[at] === u) this.criticalUnits.splice(at, 1);
      }
      lowest = Math.min(lowest, u);
    }
    while (this.instructions.length > 0 && this.instructions[this.instructions.length - 1]! >= position) this.instructions.pop();
    while (this.orphanAt.length > 0 && this.orphanAt[this.orphanAt.length - 1]! >= position) {
      this.orphanAt.pop();
      this.orphanIds.pop();
    }
    this.stored.length = position;
    // A remaining unit that lost members, and the removed units (sums over them are gone): each
    // reported, since a listener may keep sums below and above a point apart (token-ledger.ts).
    if (Number.isFinite(lowest)) this.onUnitChanged(lowest);
    if (n < before) this.onUnitChanged(n);
  }

  /** The group whose call `id` is still waiting for its result. */
  #openGroup(id: string): number | undefined {
    const unit = this.#calls.get(id);
    return unit !== undefined && !this.units[unit]!.isAnswered(id) ? unit : undefined;
  }

  /** Call ids of the orphan results (messages or blocks) stored at or after `stored`. */
  orphansFrom(stored: number): string[] {
    const ids: string[] = [];
    for (let k = lowerBound(this.orphanAt, stored); k < this.orphanAt.length; k++) ids.push(...this.orphanIds[k]!);
    return ids;
  }

  #orphan(stored: number, ids: readonly string[]): undefined {
    this.orphanAt.push(stored);
    this.orphanIds.push(ids);
    return undefined;
  }
}

function syntheticMember(message: Message): Member {
  return { stored: -1, message, critical: false, result: true, synthetic: true };
}

/** A call id used twice in one message is kept once (a provider rejects the duplicate anyway). */
function uniqueCalls(calls: CallRef[]): CallRef[] {
  if (calls.length < 2) return calls;
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.id) && seen.add(call.id));
}

function insertSorted(list: number[], value: number): void {
  const at = lowerBound(list, value);
  if (list[at] !== value) list.splice(at, 0, value);
}

/** The first position in an ascending list whose value is ≥ `value`. */
export function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
