/**
 * The check a summary passes before it replaces anything (background and manual compaction):
 * cheap and extractive — string matching over the summary, no model.
 *
 * | rule            | passes when                                                                          |
 * |-----------------|--------------------------------------------------------------------------------------|
 * | non-empty       | the text has a non-blank character                                                   |
 * | under budget    | ≤ `maxTokens` as the request's counter counts it                                     |
 * | the open task   | ≥ `shares.task` of the task's key terms (up to 8 words of 4+ letters, stop words out) appear in it, case-insensitive. The task: the newest cut message marked `metadata.task: true`, else the newest user request in the cut part (a user message with text of its own — not a tool result, not a summary); none → nothing to name |
 * | files and ids   | ≥ `shares.mentions` of the cut part's most mentioned files and ids (up to 10; paths like `src/a.ts`, names like `a.ts`, `ABC-123`, `#42`, UUIDs) appear in it; a path counts as named by its file name too |
 * | stricter hook   | no `context:summary_check` handler answers `deny` (its `reason` is the rejection's)   |
 */
import type { CompactionContext, HookBusContract, Message } from "@amplifier-ts/contracts";
import { mentionsOf, openTask } from "@amplifier-ts/summarizers";

export interface SummaryCheckShares {
  readonly task: number;
  readonly mentions: number;
}

/** What a summary of some messages has to name. */
export interface SummaryFacts {
  readonly task: string | undefined;
  readonly taskTerms: readonly string[];
  /** Most mentioned first. */
  readonly mentions: readonly string[];
}

export type SummaryVerdict = { ok: true } | { ok: false; reason: string; missing: string[] };

const MAX_TASK_TERMS = 8;
const MAX_MENTIONS = 10;
const WORD = /[a-z][a-z0-9_-]{3,}/g;
const STOP = new Set(
  "about above after again also because been before being below between both could does doing down during each from further have having here into itself just more most other over same should some such than that their them then there these they this those through under until very what when where which while with would your yours please thanks thank want need make made like sure".split(" "),
);

/** The task and the mentions of the cut part `messages` (what the summary must name). */
export function summaryFacts(messages: readonly Message[]): SummaryFacts {
  const task = openTask(messages);
  return { task, taskTerms: task === undefined ? [] : keyTerms(task), mentions: mentionsOf(messages, MAX_MENTIONS) };
}

export async function checkSummary(
  text: string,
  facts: SummaryFacts,
  options: { maxTokens: number; counter: Pick<CompactionContext["counter"], "countText">; shares: SummaryCheckShares; hooks?: HookBusContract; strategy: string; summarizer: string; covers: number },
): Promise<SummaryVerdict> {
  if (text.trim() === "") return { ok: false, reason: "the summary is empty", missing: [] };
  const tokens = options.counter.countText(text);
  if (tokens > options.maxTokens) return { ok: false, reason: `the summary has ${tokens} tokens, over its budget of ${options.maxTokens}`, missing: [] };
  const lower = text.toLowerCase();
  const missingTerms = facts.taskTerms.filter((t) => !lower.includes(t));
  const needTerms = Math.ceil(options.shares.task * facts.taskTerms.length);
  if (facts.taskTerms.length - missingTerms.length < needTerms) {
    return { ok: false, reason: `the summary does not name the open task (${facts.taskTerms.length - missingTerms.length} of its ${facts.taskTerms.length} key terms, ${needTerms} needed): "${clip(facts.task ?? "")}"`, missing: missingTerms };
  }
  const missingMentions = facts.mentions.filter((m) => !names(lower, m));
  const needMentions = Math.ceil(options.shares.mentions * facts.mentions.length);
  if (facts.mentions.length - missingMentions.length < needMentions) {
    return { ok: false, reason: `the summary names ${facts.mentions.length - missingMentions.length} of the ${facts.mentions.length} files/ids the cut part mentions most (${needMentions} needed)`, missing: missingMentions };
  }
  const hooks = options.hooks;
  if (hooks && (hooks.hasListeners?.("context:summary_check") ?? true)) {
    const folded = await hooks.emit("context:summary_check", {
      strategy: options.strategy,
      summarizer: options.summarizer,
      summary: text,
      ...(facts.task !== undefined ? { task: facts.task } : {}),
      mentions: [...facts.mentions],
      covers: options.covers,
    });
    if (folded.action === "deny") return { ok: false, reason: folded.reason ?? "a context:summary_check handler denied the summary", missing: [] };
  }
  return { ok: true };
}

function names(lowerSummary: string, mention: string): boolean {
  const m = mention.toLowerCase();
  if (lowerSummary.includes(m)) return true;
  const base = m.slice(m.lastIndexOf("/") + 1);
  return base !== m && base.length > 0 && lowerSummary.includes(base);
}

function keyTerms(task: string): string[] {
  const seen = new Set<string>();
  for (const hit of task.toLowerCase().matchAll(WORD)) {
    const w = hit[0].replace(/[-_]+$/, "");
    if (w.length >= 4 && !STOP.has(w)) seen.add(w);
    if (seen.size === MAX_TASK_TERMS) break;
  }
  return [...seen];
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
