/**
 * The explain recorder strategies write to. One per window request: enabled only when the caller
 * asked for an explanation (`getMessagesForRequest(…, { explain: true })`), so a normal request
 * pays nothing but a boolean test per decision.
 *
 * Entries are kept in the order recorded; the LAST entry for a message id wins when the context
 * manager merges them (a later strategy saw the output of an earlier one).
 */
import type { ExplainDecision, ExplainRecorder } from "@amplifier-ts/contracts";

export interface ExplainEntry {
  readonly messageId: string;
  readonly decision: ExplainDecision;
  readonly strategy: string;
  readonly reason: string;
}

export class ExplainLog implements ExplainRecorder {
  readonly enabled: boolean;
  readonly entries: ExplainEntry[] = [];

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  record(messageId: string, decision: ExplainDecision, strategy: string, reason: string): void {
    if (this.enabled) this.entries.push({ messageId, decision, strategy, reason });
  }

  /** message id → its last entry. */
  byMessage(): Map<string, ExplainEntry> {
    const map = new Map<string, ExplainEntry>();
    for (const entry of this.entries) map.set(entry.messageId, entry);
    return map;
  }
}

/** A recorder that records nothing (`enabled: false`). */
export const silentExplainRecorder: ExplainRecorder = Object.freeze({ enabled: false, record: () => {} });
