import type { Message } from "@amplifier-ts/contracts";
import type { WindowAssembler } from "@amplifier-ts/window";
import type { HistoryFollower } from "./stored-history.js";

/**
 * A tool result whose call is unknown is stored as given — the history keeps what the caller
 * added, and a later message may explain it (an import, a replayed log) — but no window will ever
 * send it (invariant 3: no result without its call). That silence hid orchestrator bugs (a result
 * added before its assistant message, a mistyped id), so each one is reported once, when it is
 * added: `context:orphan_tool_result`.
 *
 * The assembler already pairs every result as it indexes the message (history-index.ts), so this
 * follower only asks it which results of the new message found no open call: O(log n), no second
 * pairing pass. A replacement or a resume (reset) reports nothing: that history was already there.
 */
export function reportingOrphans(assembler: WindowAssembler, report: (message: Message, callIds: string[]) => void): HistoryFollower {
  return {
    append(message) {
      const position = assembler.length;
      assembler.append(message);
      const orphans = assembler.orphansFrom(position);
      if (orphans.length > 0) report(message, orphans);
    },
    reset(messages) {
      assembler.reset(messages);
    },
  };
}
