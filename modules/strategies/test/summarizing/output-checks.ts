/**
 * What every strategy output must satisfy, checked against its input (the strategy-level half of
 * the window invariants; the context manager enforces the rest after the pipeline):
 * input untouched; instructions and critical messages kept (the same objects); every unit — a tool
 * call with ALL its results, both styles — kept whole or dropped whole; stored messages in input
 * order. Messages a strategy adds (summaries) carry metadata.summary and are skipped by the order
 * and unit checks.
 */
import type { Message } from "@amplifier-ts/contracts";
import { isInstruction } from "@amplifier-ts/testing";
import { HistoryUnits } from "../../history-units.js";

export function strategyOutputProblems(input: readonly Message[], output: readonly Message[], inputJsonBefore?: string): string[] {
  const problems: string[] = [];
  if (inputJsonBefore !== undefined && JSON.stringify(input) !== inputJsonBefore) problems.push("input was mutated");
  const position = new Map<Message, number>();
  input.forEach((m, i) => position.set(m, i));
  let last = -1;
  const kept = new Set<number>();
  for (const m of output) {
    const at = position.get(m);
    if (at === undefined) {
      if (!m.metadata?.summary) problems.push(`unknown message in output: ${JSON.stringify(m).slice(0, 80)}`);
      continue;
    }
    if (at <= last) problems.push(`stored order broken at input position ${at}`);
    if (kept.has(at)) problems.push(`input position ${at} emitted twice`);
    kept.add(at);
    last = at;
  }
  input.forEach((m, i) => {
    if (isInstruction(m) && !kept.has(i)) problems.push(`instruction at ${i} dropped`);
  });
  const units = new HistoryUnits(input);
  for (let u = 0; u < units.length; u++) {
    const positions = units.positions(u);
    const n = positions.filter((p) => kept.has(p)).length;
    if (units.units[u]!.critical && n !== positions.length) problems.push(`critical unit ${u} (positions ${positions}) not kept whole`);
    else if (n !== 0 && n !== positions.length) problems.push(`unit ${u} (positions ${positions}) split: ${n} of ${positions.length} kept`);
  }
  return problems;
}
