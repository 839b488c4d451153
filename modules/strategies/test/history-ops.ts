/**
 * The random edits the incremental-state property tests apply to a live history, one step at a
 * time: append the next messages of a full history, shrink, replace one message (a new object),
 * clone the whole array (same contents, new objects), or ask for an explained request.
 */
import fc from "fast-check";
import type { Message } from "@amplifier-ts/contracts";

export type HistoryOp =
  | { kind: "append"; k: number }
  | { kind: "shrink"; to: number }
  | { kind: "replace"; at: number }
  | { kind: "clone" }
  | { kind: "explain" };

/** The edits, appends `appendWeight` times as likely as each other kind. */
export function historyOp(appendWeight: number): fc.Arbitrary<HistoryOp> {
  return fc.oneof(
    { weight: appendWeight, arbitrary: fc.record({ kind: fc.constant("append" as const), k: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("shrink" as const), to: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("replace" as const), at: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("clone" as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("explain" as const) }) },
  );
}

/** A live history being edited: `live` the current array, `next` the next message of `full` to append. */
export interface LiveHistory {
  live: Message[];
  next: number;
}

/** Applies `op` to `history` (appending from `full`); true when the step asks for an explained request. */
export function applyHistoryOp(history: LiveHistory, full: readonly Message[], op: HistoryOp): boolean {
  if (op.kind === "append") {
    for (let j = 0; j < op.k && history.next < full.length; j++) history.live.push(full[history.next++]!);
  } else if (op.kind === "shrink") {
    history.live = history.live.slice(0, op.to % (history.live.length + 1));
  } else if (op.kind === "replace" && history.live.length > 0) {
    const at = op.at % history.live.length;
    history.live = history.live.slice();
    history.live[at] = { ...history.live[at]!, metadata: { ...history.live[at]!.metadata, replaced: true } } as Message;
  } else if (op.kind === "clone") {
    history.live = structuredClone(history.live);
  }
  return op.kind === "explain";
}
