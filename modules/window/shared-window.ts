/**
 * Windows for a caller that does not hand them out as they are (fitWindow writes its own items from
 * them): `assemble({ shared: true })`. The window's messages are then the stored objects themselves
 * (and the engine's frozen repairs), not copies, and the window is EXTENDED from the last one
 * instead of rebuilt: while the plan keeps its shape (the same cut, no truncation, no placeholder
 * change, the same instructions, nothing changed below the cut), only the units from the lowest
 * one that changed since the last window are emitted again — O(new units) a call, where a built
 * window costs O(window). Anything else builds the window whole (window-builder.ts), and the next
 * call extends that.
 *
 * The arrays returned are fresh each call (a caller may keep or change them); the messages in them
 * are shared with the history and with the previous windows: the caller must not mutate them.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryIndex } from "./history-index.js";
import type { WindowPlan } from "./ladder.js";
import { idOf, resultIdsOf } from "./message-shape.js";
import { placeholderMessage } from "./window-builder.js";

export interface SharedBuilt {
  readonly messages: Message[];
  readonly sentStored: number[];
  readonly interruptedCalls: string[];
  readonly firstKeptId: string | undefined;
}

interface Cached {
  readonly from: number;
  readonly cut: number;
  readonly placeholder: boolean;
  readonly instructions: number;
  /** Units in the index when it was built. */
  units: number;
  readonly out: Message[];
  readonly sentStored: number[];
  readonly interrupted: string[];
  /** For each unit u ≥ from: the lengths of out, sentStored and interrupted where it starts. */
  readonly unitOut: number[];
  readonly unitSent: number[];
  readonly unitInterrupted: number[];
  firstKeptId: string | undefined;
}

export class SharedWindow {
  #cached: Cached | undefined;
  /** The lowest unit changed since the last shared window (HistoryIndex.onUnitChanged). */
  #dirtyFrom = Number.POSITIVE_INFINITY;

  /** A unit changed (a member added, became critical, or was truncated away). */
  changed(unit: number): void {
    if (unit < this.#dirtyFrom) this.#dirtyFrom = unit;
  }

  /** Forget the last window (history truncated or replaced). */
  forget(): void {
    this.#cached = undefined;
    this.#dirtyFrom = Number.POSITIVE_INFINITY;
  }

  /** The window of a plan without truncation or a ladder prompt (`prompt < 0`, no replacements): the assembler builds the others. */
  build(index: HistoryIndex, plan: WindowPlan, cut: number): SharedBuilt {
    let c = this.#cached;
    const extendable =
      c !== undefined &&
      plan.from === c.from &&
      cut === c.cut &&
      plan.placeholder === c.placeholder &&
      index.instructions.length === c.instructions &&
      Math.min(this.#dirtyFrom, c.units) >= c.from;
    let start: number;
    if (extendable) {
      start = Math.min(this.#dirtyFrom, c!.units);
      const k = start - c!.from;
      if (k < c!.unitOut.length) {
        c!.out.length = c!.unitOut[k]!;
        c!.sentStored.length = c!.unitSent[k]!;
        c!.interrupted.length = c!.unitInterrupted[k]!;
        c!.unitOut.length = k;
        c!.unitSent.length = k;
        c!.unitInterrupted.length = k;
      }
      if (start <= cut) c!.firstKeptId = undefined;
    } else {
      c = this.#fresh(index, plan, cut);
      start = plan.from;
    }
    this.#emitFrom(index, c!, start);
    c!.units = index.units.length;
    this.#cached = c;
    this.#dirtyFrom = Number.POSITIVE_INFINITY;
    return { messages: c!.out.slice(), sentStored: c!.sentStored.slice(), interruptedCalls: c!.interrupted.slice(), firstKeptId: c!.firstKeptId };
  }

  /** Instructions, placeholder and the kept units below `from` (critical ones, the ladder's prompt). */
  #fresh(index: HistoryIndex, plan: WindowPlan, cut: number): Cached {
    const c: Cached = {
      from: plan.from,
      cut,
      placeholder: plan.placeholder,
      instructions: index.instructions.length,
      units: 0,
      out: [],
      sentStored: [],
      interrupted: [],
      unitOut: [],
      unitSent: [],
      unitInterrupted: [],
      firstKeptId: undefined,
    };
    for (const i of index.instructions) {
      c.out.push(index.stored[i]!);
      c.sentStored.push(i);
    }
    if (plan.placeholder) c.out.push(placeholderMessage());
    // Critical units below `from` come first (window-builder.ts, forEachKeptUnit).
    for (const u of index.criticalUnits) {
      if (u >= plan.from) break;
      emitUnit(index, c, u);
    }
    return c;
  }

  #emitFrom(index: HistoryIndex, c: Cached, start: number): void {
    for (let u = start; u < index.units.length; u++) {
      c.unitOut.push(c.out.length);
      c.unitSent.push(c.sentStored.length);
      c.unitInterrupted.push(c.interrupted.length);
      emitUnit(index, c, u);
    }
  }
}

function emitUnit(index: HistoryIndex, c: Cached, u: number): void {
  for (const member of index.units[u]!.emitted()) {
    const sent = member.message;
    if (c.firstKeptId === undefined && u >= c.cut && !member.synthetic) c.firstKeptId = idOf(sent);
    c.out.push(sent);
    if (member.synthetic) c.interrupted.push(...resultIdsOf(sent));
    else c.sentStored.push(member.stored);
  }
}
