/**
 * ExtractiveSummarizer: a summary with no model and no network — for tests, offline runs, and as
 * the default when no provider-backed summarizer is configured.
 *
 * It keeps whole sentences (never rewrites them) that carry something a later turn may need:
 *
 * | signal                 | examples                                             | weight |
 * |------------------------|------------------------------------------------------|--------|
 * | identifier             | `INV-2041`, `user_id`, `createInvoice`, `#123`, UUIDs | 3      |
 * | file path              | `src/invoices/create.ts`, `./a.json`, `C:\x\y.txt`    | 3      |
 * | date or time           | `2024-05-01`, `14:30`                                | 3      |
 * | number                 | `42`, `3.5`, `12%`                                   | 2      |
 * | decision / open task   | decided, agreed, will, must, TODO, next, blocked      | 2      |
 * | preference             | prefer, always, never, don't, please, want            | 2      |
 *
 * plus every tool a message called (`tools: read_file(path=…)`), and — above every other fact —
 * two lines of what a summary must carry over (mentions.ts): `Open task: …` (the newest user
 * request) and `Files and ids: …` (the ten mentioned most). When the candidates do not fit
 * `maxTokens`, the lowest-weighted go first, newest kept on ties; what is kept stays in
 * conversation order. A `previousSummary` is MERGED: its lines are candidates too (weighted as
 * facts already chosen once), so repeated summaries update one text instead of stacking.
 * The result always fits `maxTokens` as counted by `counter` (default: ⌈chars / 4⌉).
 */
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { messageText } from "./message-text.js";
import { mentionsOf, openTask } from "./mentions.js";

export interface TextCounter {
  countText(text: string): number;
}

export interface ExtractiveSummarizerOptions {
  /** Counts the summary's tokens; pass the model's counter for exact limits. */
  counter?: TextCounter;
  /** First line of every summary. */
  heading?: string;
}

export const EXTRACTIVE_HEADING = "Summary of the earlier conversation (key facts, extracted):";

export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  readonly #counter: TextCounter;
  readonly #heading: string;

  constructor(options: ExtractiveSummarizerOptions = {}) {
    this.#counter = options.counter ?? approximateCounter;
    this.#heading = options.heading ?? EXTRACTIVE_HEADING;
  }

  async summarize(messages: readonly Message[], options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal }): Promise<string> {
    options.signal?.throwIfAborted();
    const previous = previousLines(options.previousSummary, this.#heading);
    const candidates = [...previous.filter((c) => !CARRIED_LINE.test(c.line)), ...extract(messages), ...carried(messages, previous)];
    return this.#fit(dedupe(candidates), Math.max(1, Math.floor(options.maxTokens)));
  }

  /** The heading plus the best candidates that fit, in conversation order. */
  #fit(candidates: Candidate[], maxTokens: number): string {
    const heading = this.#counter.countText(this.#heading) <= maxTokens ? this.#heading : "";
    const byPriority = candidates.map((c, order) => ({ ...c, order })).sort((a, b) => b.weight - a.weight || b.order - a.order);
    const chosen: (Candidate & { order: number })[] = [];
    let used = heading ? this.#counter.countText(heading) : 0;
    for (const candidate of byPriority) {
      const cost = this.#counter.countText(`\n${candidate.line}`);
      if (used + cost <= maxTokens) {
        chosen.push(candidate);
        used += cost;
      }
    }
    chosen.sort((a, b) => a.order - b.order);
    let text = [heading, ...chosen.map((c) => c.line)].filter(Boolean).join("\n");
    // Token counts of joined text may differ from the sum of the parts by a token or two.
    while (this.#counter.countText(text) > maxTokens && chosen.length > 0) {
      chosen.splice(lowestWeight(chosen), 1);
      text = [heading, ...chosen.map((c) => c.line)].filter(Boolean).join("\n");
    }
    if (chosen.length === 0 && candidates.length > 0) text = this.#clip(candidates[candidates.length - 1]!.line, maxTokens);
    return text;
  }

  /** The longest head of `line` that fits (when not even the best single fact fits whole). */
  #clip(line: string, maxTokens: number): string {
    let lo = 0;
    let hi = line.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#counter.countText(`${line.slice(0, mid)}…`) <= maxTokens) lo = mid;
      else hi = mid - 1;
    }
    return lo === 0 ? "" : `${line.slice(0, lo)}…`;
  }
}

interface Candidate {
  line: string;
  weight: number;
}

const IDENTIFIER = /\b(?:[A-Z]{2,}[-_]?\d+[\w-]*|[a-z]+(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|#\d+)\b|`[^`\n]+`/;
// A file name is tried from the start of its run of [\w-] only ("a-b-c.ts" once, not from each "-"):
// tried from every word boundary, "AA1-AA1-…" cost n²/2 steps. Same test() result.
const FILE_PATH = /(?:^|[\s"'(=:])(?:\.{0,2}\/)?(?:[\w.-]+[\\/])+[\w.-]+|(?<![\w-])-*\w[\w-]*\.(?:ts|js|json|md|py|go|rs|java|tsx|jsx|yaml|yml|toml|sql|csv|txt|html|css)\b/;
const DATE = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b/i;
const NUMBER = /\d/;
const DECISION = /\b(?:decid\w*|agree\w*|chose|choose|will|must|should|going to|plan\w*|todo|next step|blocked|pending|open task|remaining|deadline|approved|rejected|confirmed)\b/i;
const PREFERENCE = /\b(?:prefer\w*|always|never|don'?t|do not|please|want|like|avoid|instead)\b/i;

function weightOf(sentence: string): number {
  let weight = 0;
  if (IDENTIFIER.test(sentence)) weight += 3;
  if (FILE_PATH.test(sentence)) weight += 3;
  if (DATE.test(sentence)) weight += 3;
  else if (NUMBER.test(sentence)) weight += 2;
  if (DECISION.test(sentence)) weight += 2;
  if (PREFERENCE.test(sentence)) weight += 2;
  return weight;
}

function extract(messages: readonly Message[]): Candidate[] {
  const out: Candidate[] = [];
  for (const message of messages) {
    const { role, text, toolCalls, toolName } = messageText(message);
    if (toolCalls.length) out.push({ line: `- tools: ${toolCalls.map(shorten).join(", ")}`, weight: 4 });
    const speaker = toolName ? `${role} ${toolName}` : role;
    for (const sentence of sentences(text)) {
      const weight = weightOf(sentence);
      if (weight > 0) out.push({ line: `- ${speaker}: ${shorten(sentence)}`, weight });
    }
  }
  return out;
}

function previousLines(previous: string | undefined, heading: string): Candidate[] {
  if (!previous) return [];
  return previous
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && line !== heading)
    .map((line) => ({ line: line.startsWith("- ") ? line : `- ${line}`, weight: weightOf(line) + 1 }));
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'`(])|\n+/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0);
}

const MAX_LINE = 300;
function shorten(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of candidates) if (!seen.has(c.line)) seen.add(c.line) && out.push(c);
  return out;
}

function lowestWeight(list: readonly Candidate[]): number {
  let at = 0;
  list.forEach((c, i) => {
    if (c.weight < list[at]!.weight) at = i;
  });
  return at;
}

/** Above every extracted fact: what a summary must carry over (mentions.ts) goes in first. */
const CARRIED_WEIGHT = 100;

const TASK_PREFIX = "- Open task: ";
const MENTIONS_PREFIX = "- Files and ids: ";
const CARRIED_LINE = /^- (?:Open task|Files and ids): /;
/** Mentions kept across updates: the new part's first, then the previous summary's. */
const MAX_CARRIED_MENTIONS = 16;

/**
 * The open task and the files/ids the messages mention most, as two lines (issue 29 §1's summary
 * check asks for both), merged with the previous summary's: its task when the new messages hold
 * none, its mentions after the new ones.
 */
function carried(messages: readonly Message[], previous: readonly Candidate[]): Candidate[] {
  const lines: Candidate[] = [];
  const task = openTask(messages);
  const previousTask = previous.find((c) => c.line.startsWith(TASK_PREFIX))?.line;
  if (task !== undefined) lines.push({ line: shorten(`${TASK_PREFIX}${task.replace(/\s+/g, " ").trim()}`), weight: CARRIED_WEIGHT });
  else if (previousTask !== undefined) lines.push({ line: previousTask, weight: CARRIED_WEIGHT });
  const previousMentions = previous.find((c) => c.line.startsWith(MENTIONS_PREFIX))?.line.slice(MENTIONS_PREFIX.length).split(", ") ?? [];
  const mentions = [...new Set([...mentionsOf(messages), ...previousMentions.filter(Boolean)])].slice(0, MAX_CARRIED_MENTIONS);
  if (mentions.length > 0) lines.push({ line: `${MENTIONS_PREFIX}${mentions.join(", ")}`, weight: CARRIED_WEIGHT });
  return lines;
}

const approximateCounter: TextCounter = { countText: (text) => Math.ceil(text.length / 4) };
