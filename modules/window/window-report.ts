/**
 * What assemble() reports about the window it returned. The context modules put these numbers
 * in `context:pre_compact` / `context:post_compact`; `decisions` (only with `explain: true`)
 * account for every stored message, for explainLastWindow() and replay.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { CutReason } from "./cut-policy.js";
import type { LadderLevel } from "./ladder.js";

export type DecisionAction = "kept" | "truncated" | "dropped" | "synthetic";

/**
 * | reason              | action              | meaning                                                        |
 * |---------------------|---------------------|----------------------------------------------------------------|
 * | `instruction`       | kept                | system / developer message (not a turn note): always kept, first |
 * | `critical`          | kept                | `metadata.critical`, or in a tool group with a critical member |
 * | `in-window`         | kept                | at or after the cut                                            |
 * | `result-cap`        | truncated           | tool result cut to the ladder's cap                            |
 * | `note-cap`          | truncated           | a note opening the last turn cut (ladder steps 4–5)            |
 * | `prompt-cap`        | truncated           | the last turn's user message cut (ladder step 5)               |
 * | `before-first-turn` | dropped             | before the first user turn: a window starts with a user message |
 * | `before-cut`        | dropped             | older than the cut (compaction)                                |
 * | `older-in-turn`     | dropped             | ladder step 2: an older unit inside the last turn              |
 * | `orphan-result`     | dropped             | a tool result whose call is absent or already answered         |
 * | `interrupted`       | synthetic           | made-up result for a call without one (crash mid-tool)         |
 * | `placeholder`       | synthetic           | user placeholder before a first kept message that is not a user turn |
 * | `request-only`      | kept                | one of `extraMessages`                                         |
 *
 * A hook turn note (`metadata.scope: "turn"`) gets the reason of its unit like any conversation
 * message (`in-window`, `critical`, `before-cut`, `older-in-turn` …; `note-cap` when the ladder cut it) and
 * `note: true`.
 */
export type DecisionReason =
  | "instruction"
  | "critical"
  | "in-window"
  | "result-cap"
  | "note-cap"
  | "prompt-cap"
  | "before-first-turn"
  | "before-cut"
  | "older-in-turn"
  | "orphan-result"
  | "interrupted"
  | "placeholder"
  | "request-only"
  /** Not the assembler's: a context manager's mark for a stored input sent as the excerpt of its spilled text (context-manager spilled-history.ts). */
  | "spilled";

export interface WindowDecision {
  /** Index in the stored history; -1 for synthetic and request-only messages. */
  readonly index: number;
  readonly id: string | undefined;
  readonly role: Message["role"];
  readonly action: DecisionAction;
  readonly reason: DecisionReason;
  /** Tokens the message costs in this window (kept, truncated and synthetic messages only). */
  readonly tokens?: number;
  /** tool_result blocks removed from this message because their call is absent. */
  readonly orphanResultsRemoved?: number;
  /** A hook turn note (`metadata.scope: "turn"`): conversation of its turn, not an instruction. */
  readonly note?: true;
}

/** Shaped to be `context:post_compact`'s `repaired` as is (contracts/events.ts), plus counts. */
export interface WindowRepairs {
  /** Calls in the window that got a synthetic "interrupted" result. */
  readonly syntheticResults: number;
  /** Their call ids. */
  readonly interruptedCalls: string[];
  /** Orphan results (tool messages or tool_result blocks) dropped from the window's range (at or after the cut). */
  readonly orphansDropped: number;
  /** The call ids those orphan results named. */
  readonly orphanResults: string[];
  /** A user placeholder was put before the first kept message (see repair.ts). */
  readonly placeholder: boolean;
}

export interface WindowReport {
  readonly historyMessages: number;
  /**
   * Request tokens of the whole history sent as is. Exact when `historyTokensExact`; otherwise
   * the counted newest part plus an estimate for the older part no decision needed (its
   * messages × the counted part's average): the ledger never tokenizes more than a window needs.
   */
  readonly historyTokens: number;
  readonly historyTokensExact: boolean;
  readonly windowMessages: number;
  /** Exact request tokens of the window: Σ countMessage + replyPriming + countTools(tools). */
  readonly windowTokens: number;
  /** Stored messages absent from the window. */
  readonly removed: number;
  /** Window messages whose text was truncated. */
  readonly truncated: number;
  readonly repaired: WindowRepairs;
  /** The cut is past the first user turn, or the ladder changed something. */
  readonly compacted: boolean;
  /** Stored index of the first message of the cut (history length when nothing is kept). */
  readonly cutIndex: number;
  /** metadata.id of the first kept message at or after the cut. */
  readonly firstKeptId: string | undefined;
  readonly cutReason: CutReason;
  /** The ladder step that made the window fit (cut reason `ladder` only). */
  readonly ladder: LadderLevel | undefined;
  readonly budget: number;
  /** Tokens of the window's instructions (system/developer messages that are not turn notes). */
  readonly instructionTokens: number;
  /** Tokens of the tool definitions sent with the window (countTools). */
  readonly toolTokens: number;
  /**
   * Stored index of every stored message the window holds, in window order, and of those it holds
   * truncated: what was sent, at O(window) — without `explain`'s O(history) account of the rest.
   */
  readonly sentStored: readonly number[];
  readonly sentTruncated: readonly number[];
  /**
   * Assistant messages of turns before the last one sent without their thinking blocks (thinking
   * policy `drop-older`, the default), and the tokens of the thinking left out (the token rules'
   * own count of those blocks). `windowTokens` is what is sent, without them; the cut and the
   * ladder planned with them counted (an upper bound), so a window never grows past the budget
   * when a turn ends and its thinking starts being dropped.
   */
  readonly thinkingDropped: { readonly messages: number; readonly tokens: number };
  readonly durationMs: number;
  readonly decisions?: readonly WindowDecision[];
}
