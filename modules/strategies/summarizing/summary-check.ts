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
import { forEachContentPart } from "@amplifier-ts/contracts";
import { messageText } from "@amplifier-ts/summarizers";
import { isSummaryMessage } from "./summary-message.js";

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
const FILE = /(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]\w{0,7}\b|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|go|rs|java|kt|rb|php|c|h|cpp|cs|sql|yaml|yml|toml|txt|csv|html|css|sh)\b/g;
const ID = /\b[A-Z][A-Z0-9]+-\d+\b|#\d+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const WORD = /[a-z][a-z0-9_-]{3,}/g;
const STOP = new Set(
  "about above after again also because been before being below between both could does doing down during each from further have having here into itself just more most other over same should some such than that their them then there these they this those through under until very what when where which while with would your yours please thanks thank want need make made like sure".split(" "),
);

/** The task and the mentions of the cut part `messages` (what the summary must name). */
export function summaryFacts(messages: readonly Message[]): SummaryFacts {
  let task: string | undefined;
  for (let i = messages.length - 1, marked = false; i >= 0 && !marked; i--) {
    const m = messages[i]!;
    if (m.metadata?.task === true) {
      task = messageText(m).text;
      marked = true;
    } else if (task === undefined && isRequest(m)) {
      task = ownText(m);
    }
  }
  const counts = new Map<string, number>();
  for (const m of messages) {
    const { text, toolCalls } = messageText(m);
    for (const source of [text, ...toolCalls]) {
      for (const re of [FILE, ID]) {
        for (const hit of source.matchAll(re)) {
          const mention = hit[0].replace(/^\.{0,2}\//, "");
          counts.set(mention, (counts.get(mention) ?? 0) + 1);
        }
      }
    }
  }
  const mentions = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_MENTIONS)
    .map(([mention]) => mention);
  return { task, taskTerms: task === undefined ? [] : keyTerms(task), mentions };
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

/** A user message with text of its own (not only tool results), not a summary. */
function isRequest(m: Message): boolean {
  return m.role === "user" && !isSummaryMessage(m) && ownText(m).trim() !== "";
}

function ownText(m: Message): string {
  if (typeof m.content === "string") return m.content;
  const parts: string[] = [];
  forEachContentPart(m, { text: (t) => void parts.push(t) });
  return parts.join("\n");
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
