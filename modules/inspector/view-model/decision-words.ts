/**
 * The turn view's words for who decided and why, from the window assembler's reason codes
 * (window-report.ts) — the user's words, never internal names like "window" or "pipeline".
 *
 * | code                                              | by             | why                                                   |
 * |---------------------------------------------------|----------------|-------------------------------------------------------|
 * | instruction                                       | instruction    | system/developer instruction: always sent, first      |
 * | critical                                          | critical       | marked critical (or in a tool group with a critical member) |
 * | in-window                                         | fits budget    | recent enough to fit the budget                       |
 * | before-cut, older-in-turn                         | over budget    | older than the window's cut / older part of the last turn |
 * | result-cap, note-cap, prompt-cap                  | over budget    | cut to fit the budget                                 |
 * | before-first-turn                                 | window start   | before the first user turn the window starts with    |
 * | orphan-result                                     | unpaired result| a tool result without its call                        |
 * | removed-by-pipeline                               | compaction strategies | not returned by the compaction strategies      |
 * | spilled (strategy "spill")                        | spill          | too large for the window: stored whole, sent as an excerpt with its handle |
 *
 * A pipeline strategy (summarize, recall, tool-result-compaction …) is named by its own name.
 */
const BY: Record<string, string> = {
  instruction: "instruction",
  critical: "critical",
  "in-window": "fits budget",
  "before-cut": "over budget",
  "older-in-turn": "over budget",
  "result-cap": "over budget",
  "note-cap": "over budget",
  "prompt-cap": "over budget",
  "before-first-turn": "window start",
  "orphan-result": "unpaired result",
  interrupted: "repair",
  placeholder: "repair",
  "request-only": "request",
  "removed-by-pipeline": "compaction strategies",
  spilled: "spill",
};

const WHY: Record<string, string> = {
  instruction: "system/developer instruction: always sent, first",
  critical: "marked critical (or in a tool group with a critical member)",
  "in-window": "recent enough to fit the budget",
  "before-cut": "older than the window's cut: the budget had no room",
  "older-in-turn": "older part of the last turn, dropped to fit the budget",
  "result-cap": "tool result cut to fit the budget",
  "note-cap": "a note opening the last prompt, cut to fit the budget",
  "prompt-cap": "the last prompt, cut to fit the budget",
  "before-first-turn": "before the first user turn (a window starts with a user message)",
  "orphan-result": "tool result without its call",
  interrupted: "synthetic result for an interrupted call",
  placeholder: "placeholder for omitted history",
  "request-only": "request-only message",
  "removed-by-pipeline": "not returned by the compaction strategies",
  spilled: "too large for the window: stored whole in the session's blob store, sent as an excerpt naming its handle (read_stored_result reads the rest)",
};

/** Who decided, in the user's words: a strategy's own name, else what the code means ("over budget", "fits budget" …). */
export function byWords(strategy: string, code: string | undefined, decision: string): string {
  if (strategy !== "window" && strategy !== "pipeline") return strategy;
  if (code !== undefined && BY[code] !== undefined) return BY[code];
  if (strategy === "pipeline") return "compaction strategies";
  return decision === "dropped" || decision === "truncated" ? "over budget" : "fits budget";
}

/** Why, in words, for a reason code; the code itself when it is not one (a strategy's own words). */
export function whyWords(code: string): string {
  return WHY[code] ?? code;
}
