/**
 * The output of a strategy that keeps or drops whole units of its input (sliding-window,
 * truncation, token-budget's own cut, selective-tool-call), kept INCREMENTALLY as a MessageLog:
 * a request re-examines only the input positions whose fate may have changed — the new ones, and
 * when the cut moves, the ones from the lower of the old and new boundary on — so while the input
 * only grows and the cut stays, the cost is O(new messages); a moved cut costs O(what follows the
 * boundary + instructions + critical units). The result is exactly `HistoryUnits.keepFrom(cut)`
 * (rule "tail") or the selective drop of old groups (rule "groups"), or the input itself (cut 0).
 *
 * | rule     | kept input positions                                                                 |
 * |----------|--------------------------------------------------------------------------------------|
 * | `all`    | every position (nothing cut)                                                         |
 * | `tail`   | instructions, critical units, units ≥ cut, the prompt unit (turn the cut falls in), the turn in progress, orphans ≥ the cut's first position |
 * | `groups` | everything except non-critical `group` units before the cut other than the turn in progress |
 *
 * The turn in progress (HistoryIndex.inProgressGroup) is kept on top of the limit, like critical
 * units: it is the tail of the history, and without it the model calls its tool again.
 */
import type { Message } from "@amplifier-ts/contracts";
import { lowerBound } from "@amplifier-ts/window";
import { INSTRUCTION, ORPHAN, type Dropped, type HistoryUnits } from "./history-units.js";
import { MessageLog } from "./message-log.js";

export type KeepRule =
  | { readonly kind: "all" }
  | { readonly kind: "tail"; readonly cut: number; readonly prompt: number; readonly inProgress: number; readonly orphansFrom: number }
  | { readonly kind: "groups"; readonly cut: number; readonly inProgress: number };

/** The rule `HistoryUnits.keepFrom(cut)` applies (cut 0 = all). */
export function tailRule(units: HistoryUnits, cut: number): KeepRule {
  if (cut === 0) return { kind: "all" };
  let prompt = -1;
  if (units.units[cut]?.kind !== "turn") prompt = units.turnBefore(Math.min(cut, units.length)) ?? -1;
  return { kind: "tail", cut, prompt, inProgress: units.index.inProgressGroup, orphansFrom: units.units[cut]?.firstStored ?? units.messages.length };
}

/** The rule of a cut that drops only the tool groups before `cut` (cut 0 = all); the turn in progress stays. */
export function groupsRule(units: HistoryUnits, cut: number): KeepRule {
  return cut === 0 ? { kind: "all" } : { kind: "groups", cut, inProgress: units.index.inProgressGroup };
}

export class CutOutput {
  readonly log = new MessageLog();
  /** Input position of each output message (ascending). */
  readonly #source: number[] = [];
  #rule: KeepRule | undefined;
  #units: HistoryUnits | undefined;

  /**
   * Brings the output up to date. `from`: input positions below it are unchanged since the last
   * update (new or rewritten ones start there); `units` is the split of the whole input (grown);
   * `onDropped` (explain) asks for a full pass that reports every dropped position.
   */
  update(units: HistoryUnits, rule: KeepRule, from: number, onDropped?: Dropped): void {
    const n = units.messages.length;
    let q = from;
    if (units !== this.#units || this.#rule === undefined || onDropped) q = 0;
    else {
      if (!sameRule(this.#rule, rule)) q = Math.min(q, boundary(units, this.#rule), boundary(units, rule));
      // A unit that gained a member or became critical (a critical unit keeps members dropped
      // before): re-examined from the lowest unit the last grow changed — usually the newest group.
      if (Number.isFinite(units.lowestChanged)) {
        q = Math.min(q, units.units[units.lowestChanged]?.firstStored ?? n);
      }
    }
    this.#units = units;
    this.#rule = rule;
    q = Math.min(q, n);
    const source = this.#source;
    const keep = lowerBound(source, q);
    source.length = keep;
    this.log.truncate(keep);
    const messages = units.messages;
    const start = this.#sparseTo(units, rule, q, onDropped);
    for (let i = start; i < n; i++) {
      if (keeps(units, rule, i)) {
        source.push(i);
        this.log.append(messages[i]!);
      } else onDropped?.(messages[i]!, i);
    }
  }

  /** Output identical to the input (nothing dropped). */
  get isIdentity(): boolean {
    return this.log.length === (this.#units?.messages.length ?? 0);
  }

  /** Forget everything: the next update rebuilds. */
  reset(): void {
    this.#rule = undefined;
    this.#units = undefined;
  }

  /**
   * Rule "tail": below its boundary only instructions and critical units are kept — those are
   * emitted from the index's lists instead of scanning every position. Returns where the scan goes on.
   */
  #sparseTo(units: HistoryUnits, rule: KeepRule, q: number, onDropped: Dropped | undefined): number {
    if (rule.kind !== "tail" || onDropped) return q;
    const b = boundary(units, rule);
    if (b <= q) return q;
    const positions: number[] = [];
    const { instructions, criticalUnits } = units.index;
    for (let k = lowerBound(instructions, q); k < instructions.length && instructions[k]! < b; k++) positions.push(instructions[k]!);
    for (const u of criticalUnits) {
      const unit = units.units[u]!;
      if (unit.firstStored >= b) break;
      for (const member of unit.members) if (member.stored >= q && member.stored < b) positions.push(member.stored);
    }
    positions.sort((x, y) => x - y);
    const messages = units.messages;
    for (const p of positions) {
      this.#source.push(p);
      this.log.append(messages[p]!);
    }
    return b;
  }
}

function keeps(units: HistoryUnits, rule: KeepRule, i: number): boolean {
  if (rule.kind === "all") return true;
  const u = units.unitAt(i);
  if (u === INSTRUCTION) return true;
  if (u === ORPHAN) return rule.kind === "groups" || i >= rule.orphansFrom;
  const unit = units.units[u]!;
  if (unit.critical || u >= rule.cut || u === rule.inProgress) return true;
  return rule.kind === "tail" ? u === rule.prompt : unit.kind !== "group";
}

/** Input positions below this keep the same fate under `rule` whatever the cut (instructions and critical units only). */
function boundary(units: HistoryUnits, rule: KeepRule): number {
  if (rule.kind === "all") return 0;
  const first = (u: number) => units.units[u]?.firstStored ?? units.messages.length;
  const inProgress = rule.inProgress >= 0 ? first(rule.inProgress) : Number.POSITIVE_INFINITY;
  if (rule.kind === "groups") return Math.min(first(rule.cut), inProgress);
  return Math.min(first(rule.cut), rule.prompt >= 0 ? first(rule.prompt) : Number.POSITIVE_INFINITY, inProgress, rule.orphansFrom);
}

function sameRule(a: KeepRule, b: KeepRule): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "all" || b.kind === "all") return true;
  if (a.cut !== b.cut || a.inProgress !== b.inProgress) return false;
  return a.kind === "groups" || (b.kind === "tail" && a.prompt === b.prompt && a.orphansFrom === b.orphansFrom);
}
