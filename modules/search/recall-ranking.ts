/**
 * Recall ranking: which of a search's hits a window should bring back, best first. `search()`
 * ranks by BM25 alone — the right answer to "which messages share this query's words". Recall
 * asks something narrower: "which old messages answer what the user just asked", from a pool of
 * candidates several times larger than what it keeps:
 *
 * | step            | what                                                                                  | why |
 * |-----------------|---------------------------------------------------------------------------------------|-----|
 * | query           | the question clauses of the latest user message (recall-query.ts)                    | a request around the question would outrank it |
 * | pool            | `max(80, 10 × keep)` hits of the search, BM25 (or BM25 + vectors fused)               | the priors below reorder beyond the first few |
 * | tool output     | tool results and tool-calling assistant messages × 0.5                                | people ask back what was said, not what a tool printed (a tool can be run again); they stay candidates |
 * | answer type     | "who …"/"which colleague …" → a name (two capitalised words, an @handle, one capitalised word inside a sentence), "when …/what date …" → a date or time, "how many/much …" or a measure (size, limit, budget, uptime, latency, timeout, version, port …) → a number, "which … did we pick/settle on/do we use", "which … won", any other "which …" or "what <noun> <auxiliary> …" → a decision ("we went with", "decision:", "rather than", "sticking with", "moved CI to", "the vote went to"), "what's my preference/how do I like …" → a preference in the speaker's voice ("I prefer", "my rule", "always", "never"): a conversation message holding one × 2.5 | the statement answering a question holds its answer; a request on the same topic does not |
 * | revision        | a question about the current state ("… now?", "the current slot", "where did it end up", "it changed") → a message revising something said before ("actually", "scratch that", "change of plan", "update:", "moves to", "slips to") × 1.5 | people change their minds; the latest revision answers, and it often says fewer of the question's words than the plan it replaced |
 * | diversity (MMR) | maximal marginal relevance, λ = 0.7: each next hit maximises λ·relevance − (1 − λ)·(its greatest term overlap with a hit already kept) | ten near-identical messages on a topic ("run the payments tests") would take every slot and push out the one that differs |
 *
 * Relevance is the prior-weighted score over the pool's best. Overlap is the cosine of the two
 * messages' term sets (of their first MMR_CHARS characters — a bounded cost per candidate, cached
 * per message object). Everything is model-free and deterministic: equal inputs give equal orders.
 * The cue words (question words, decision, preference and revision phrases) are English: in other
 * languages no answer type or revision is recognised, and ranking is BM25 with the tool-output
 * weight and MMR.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistorySearch, SearchHit, SearchOptions } from "@amplifier-ts/contracts";
import { callsOf, isResultCarrier } from "@amplifier-ts/window";
import { searchableText } from "./message-text.js";
import { matchedByQuestionsOnly, questionClauses } from "./recall-query.js";
import { isStopWord, tokenize } from "./tokenizer.js";

export type AnswerType = "person" | "datetime" | "number" | "decision" | "preference";

/** The reranking rules of rankForRecall (each can be left out, for the eval's ablation). */
export type RankingRule = "tool-output" | "question-only" | "answer-type" | "revision" | "diversity";
export const ALL_RULES: readonly RankingRule[] = ["tool-output", "question-only", "answer-type", "revision", "diversity"];
/**
 * The rules each recall ranking applies. "recall" (the default) keeps what earned its place on
 * conversations people wrote (BENCHMARKS.md, the ablation on REALTALK: the cue rules moved the
 * development set by less than a point either way, and were tuned on our own generator) plus
 * tool output down (agent sessions: what a tool printed can be run again); "cues" is every rule,
 * the first, generator-tuned ranking.
 */
export const RANKING_RULES: Readonly<Record<"recall" | "cues", readonly RankingRule[]>> = {
  recall: ["tool-output"],
  cues: ALL_RULES,
};

/** A ranked hit and why it moved (for explanations). */
export interface RankedHit {
  readonly hit: SearchHit;
  /** Prior-weighted score (before diversity). */
  readonly score: number;
  /** What changed its score: "tool output ×0.5", "holds a date or time ×2.5". */
  readonly notes: readonly string[];
}

/** Weight of tool results and tool-calling assistant messages. */
export const TOOL_OUTPUT_WEIGHT = 0.5;
/** Weight of a message that matched a question query only by what it asked (its question clauses). */
export const QUESTION_WEIGHT = 0.5;
/**
 * Weight of a conversation message holding the answer type the question asks for. The statement
 * that answers often shares only the topic word with the question while requests on the topic
 * share several, so the weight is large (measured on development seeds: 1.5 → 2.5 raised the
 * evidence's top-8 rate from 95.3 to 96.5 %, flat beyond 3).
 */
export const ANSWER_TYPE_WEIGHT = 2.5;
/** Weight of a conversation message revising something said before, when the question asks for the current state. */
export const REVISION_WEIGHT = 1.5;
const ANSWER_TYPE_NAMES: Record<AnswerType, string> = {
  person: "a name",
  datetime: "a date or time",
  number: "a number",
  decision: "a decision",
  preference: "a preference",
};
/** MMR trade-off between relevance (1) and novelty (0). */
export const MMR_LAMBDA = 0.7;
/** Characters of a message its diversity term set is taken from. */
export const MMR_CHARS = 1_000;
/**
 * Candidates asked of the search for `keep` hits: with the cue rules (ranking "cues") ten times
 * as many — they reorder deep; with the tool-output weight alone (the default) twice as many —
 * a halved score moves a hit down, never up from far below.
 */
export function poolSize(keep: number, rules: readonly RankingRule[] = ALL_RULES): number {
  return Math.max(80, keep * (rules.some((r) => r !== "tool-output") ? 10 : 2));
}

/** "who …", or "which/what <person> …" ("which colleague signed up", "what engineer owns it"). */
const WHO = /\b(?:who|whom|whose|(?:which|what)\s+(?:colleague|coworker|co-worker|person|people|teammate|team\s+member|engineer|developer|dev|designer|manager|lead|owner|reviewer|member|contact|human|one\s+of\s+(?:us|them)))s?\b/i;
const WHEN = /\b(?:when|day|date|deadline|what\s+time|which\s+(?:week|month))\b/i;
const HOW_MUCH = /\bhow\s+(?:many|much|big|large|long|often|old|fast|high)\b|\b(?:number|count|size|limit|cap|rate|amount|total|percentage|percent|price|cost|budget|uptime|latency|timeout|quota|threshold|capacity|sla|slo|version|port)\b/i;
/** Asking what was chosen: "which database did we pick", "what did we go with", "did we settle it". */
const CHOSEN = /\b(?:decid(?:e|ed|ing)|decision|(?:do|did|are|will)\s+we\s+(?:use|using|run|running)|won|wins?|winner|stick(?:ing)?\s+with|stay(?:ing)?\s+with|switch(?:ed|ing)?\s+to|choose|chose|chosen|choice|pick(?:ed)?|select(?:ed)?|settle(?:d)?|opt(?:ed)?|go(?:ing)?\s+with|went\s+with|end(?:ed)?\s+up|in\s+the\s+end|land(?:ed)?\s+on|agree(?:d)?|vote(?:d)?|adopt(?:ed)?|buy|bought|homegrown|build\s+(?:it|our\s+own))\b/i;
/** Asking what the user wants or said: "what's my preference for …", "how do I like …", "any rules from me", "what did I say about …". */
const LIKES = /\b(?:prefer(?:s|red)?|preference|preferences|say|said|tell|told|mention(?:ed)?|like|likes|liked|want|wanted|taste|style|rule|rules|convention|conventions|how\s+should)\b/i;
/** "which …", or "what <noun> …" ("what queue do payouts run on"): one of several is asked for. */
const WHICH = /\bwhich\b|\bwhat\s+(?!(?:is|are|was|were|do|does|did|will|would|should|shall|can|could|has|have|had|i|we|you|they|he|she|it|about|if|else|happened|happens|went|goes|kind|sort)\b)\p{L}+\s+(?:is|are|was|were|do|does|did|will|would|should|can|could|has|have|had)\b/iu;
const FIRST_PERSON_QUESTION = /\b(?:i|my|me|mine)\b/i;

/** What kind of answer a question asks for, when it says (who → person, when → date/time, how many → number). */
export function answerTypeOf(question: string): AnswerType | undefined {
  const found: [number, AnswerType][] = [];
  for (const [pattern, type] of [
    [WHO, "person"],
    [WHEN, "datetime"],
    [HOW_MUCH, "number"],
  ] as const) {
    const at = question.search(pattern);
    if (at >= 0) found.push([at, type]);
  }
  found.sort((a, b) => a[0] - b[0]);
  if (found.length > 0) return found[0]![1];
  // A choice or a preference is asked for in more ways than a name or a date; the specific
  // kinds above win when the question names one ("which day did we pick" wants the day).
  if (LIKES.test(question) && FIRST_PERSON_QUESTION.test(question)) return "preference";
  if (CHOSEN.test(question)) return "decision";
  // "Which engine is the spin-off built on?": picking one of several is asked for — a choice.
  if (WHICH.test(question)) return "decision";
  return undefined;
}

/** A statement of a choice: "we went with Kafka", "decision: MySQL", "final call: …", "rather than building our own". */
const DECIDED = /\b(?:decided|decision|decide|votes?|won|wins|winner|stick(?:ing)?\s+with|stay(?:ing)?\s+with|(?:switch(?:ed|ing)?|migrat(?:e|ed|ing)|mov(?:e|ed|ing))(?:\s+[\p{L}\p{N}-]+)?\s+to|dropped|keep\s+using|chose|chosen|choice|picked|selected|settled\s+on|settled|opted|went\s+with|go(?:ing)?\s+with|agreed|voted|final\s+call|adopt(?:ed|ing)?|standardi[sz]e(?:d)?\s+on|signed\s+off|over\s+the\s+alternatives|rather\s+than|instead\s+of)\b/iu;
/** A stated preference, in the speaker's voice: "I prefer …", "my preference: …", "always …", "never …". */
const PREFERS = /\b(?:i\s+(?:really\s+|much\s+|strongly\s+)?(?:prefer|like|love|hate|want|dislike|favou?r)|i'd\s+(?:rather|prefer|like)|my\s+(?:preference|taste|rule|style|convention|default)|always|never|don't\s+ever|do\s+not\s+ever|rather\s+than|instead\s+of)\b/i;
/**
 * Asking for the state of something that changed: "what is it now", "the current slot", "where
 * did it end up", "it changed a couple of times". The newest statement answers; older ones are
 * superseded.
 */
const CURRENT = /\b(?:now|current(?:ly)?|latest|newest|most\s+recent|these\s+days|at\s+the\s+moment|anymore|still|in\s+the\s+end|end(?:ed)?\s+up|land(?:ed)?\s+on|final(?:ly)?|after\s+all|chang(?:ed|es)|moved|updated|revised)\b/i;
/** A revision of something said before: "actually …", "scratch that", "change of plan", "update: …", "moves to Thursday". */
const REVISES = /\b(?:actually|dropped|retired|(?:moved|switched|migrated)(?:\s+[\p{L}\p{N}-]+)?\s+to|scratch\s+that|change\s+of\s+plans?|update(?:d|\s*:)|correction|correcting|on\s+(?:second\s+thought|reflection)|instead|after\s+all|changed|change\s+it|switch(?:ed)?\s+to|move[sd]?\s+(?:to|again)|moving\s+to|push(?:ed)?\s+(?:to|back)|postponed?|slip(?:s|ped)?|rescheduled?|no\s+longer|not\s+anymore)(?!\w)/iu;

/** True when `question` asks for the present state of something that may have changed. */
export function asksForCurrent(question: string): boolean {
  return CURRENT.test(question);
}

/** True when `text` revises something said before ("Scratch that, standup is at 10:15 after all."). */
export function revisesEarlier(text: string): boolean {
  return REVISES.test(text);
}

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DATETIME = new RegExp(
  [
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b`,
    "\\bthe\\s+\\d{1,2}(?:st|nd|rd|th)\\b",
    `\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?\\b`,
    "\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b",
    "\\b\\d{4}-\\d{2}-\\d{2}\\b",
    "\\b\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?\\b",
    "\\b\\d{1,2}(?::\\d{2})?\\s?(?:am|pm)\\b",
    "\\b\\d{1,2}:\\d{2}\\b",
  ].join("|"),
  "i",
);
const NUMBER = /\b\d+(?:[.,]\d+)?\b/;
const CAPITALISED_PAIR = /(?<![\p{L}\p{N}])(\p{Lu}\p{Ll}+)\s+(\p{Lu}\p{Ll}+)(?![\p{L}\p{N}])/gu;
const HANDLE = /(?<![\p{L}\p{N}])@[\p{L}\p{N}_.-]+/u;
/**
 * A single capitalised word inside a sentence, after a word in lowercase ("ask Dmitri", "owned by
 * Priya"; not "The Payments …"): a name or a proper noun. A capitalised word opening a sentence is not taken alone —
 * "Dmitri owns it" and "Deploy it" look the same without a dictionary. The lowercase word is
 * matched forwards, from its first letter, not in a lookbehind: a lookbehind is tried at every
 * position and scanned back over the whole run of spaces each time (quadratic on a run of spaces). Matching it consumes the word, which never hides a candidate: the word before a name
 * is lowercase, so it is never the previous match's name.
 */
const NAME_IN_SENTENCE = /(?<![\p{L}\p{N}])\p{Ll}+,?\s+(\p{Lu}\p{Ll}{2,})(?![\p{L}\p{N}])/gu;
const NOT_NAMES = new Set(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"]);

/** True when `text` holds something of the answer type (a name: two capitalised words, an @handle, or one capitalised word inside a sentence). */
export function holdsAnswerType(text: string, type: AnswerType): boolean {
  if (type === "datetime") return DATETIME.test(text);
  if (type === "number") return NUMBER.test(text);
  if (type === "decision") return DECIDED.test(text);
  if (type === "preference") return PREFERS.test(text);
  if (HANDLE.test(text)) return true;
  for (const match of text.matchAll(CAPITALISED_PAIR)) if (!isStopWord(match[1]!.toLowerCase())) return true;
  for (const match of text.matchAll(NAME_IN_SENTENCE)) {
    const word = match[1]!.toLowerCase();
    if (!isStopWord(word) && !NOT_NAMES.has(word)) return true;
  }
  return false;
}

/** Tool results and assistant messages that call tools (the window's shape rules: message-shape.ts). */
export function isToolMessage(message: Message): boolean {
  return isResultCarrier(message) || callsOf(message).length > 0;
}

const diversityTerms = new WeakMap<Message, ReadonlySet<string>>();

function termsFor(message: Message): ReadonlySet<string> {
  let terms = diversityTerms.get(message);
  if (!terms) diversityTerms.set(message, (terms = new Set(tokenize(searchableText(message).slice(0, MMR_CHARS)))));
  return terms;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const t of small) if (large.has(t)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}

/**
 * Reorders `hits` (a search's candidates for `question`) for recall and returns the best `keep`:
 * priors first (tool output, answer type), then maximal marginal relevance.
 */
export function rankForRecall(question: string, hits: readonly SearchHit[], keep: number, rules: readonly RankingRule[] = ALL_RULES): RankedHit[] {
  if (keep <= 0 || hits.length === 0) return [];
  const off = ALL_RULES.filter((r) => !rules.includes(r));
  const type = off.includes("answer-type") ? undefined : answerTypeOf(question);
  const asking = !off.includes("question-only") && questionClauses(question).length > 0;
  const current = !off.includes("revision") && asksForCurrent(question);
  const tools = !off.includes("tool-output");
  const weighted: RankedHit[] = hits.map((hit) => {
    let score = hit.score;
    const notes: string[] = [];
    if (tools && isToolMessage(hit.message)) {
      score *= TOOL_OUTPUT_WEIGHT;
      notes.push(`tool output ×${TOOL_OUTPUT_WEIGHT}`);
      return { hit, score, notes };
    }
    const text = searchableText(hit.message);
    if (asking && matchedByQuestionsOnly(text, hit.terms ?? [])) {
      score *= QUESTION_WEIGHT;
      notes.push(`matched by its own question ×${QUESTION_WEIGHT}`);
    } else {
      if (type && holdsAnswerType(text, type)) {
        score *= ANSWER_TYPE_WEIGHT;
        notes.push(`holds ${ANSWER_TYPE_NAMES[type]} ×${ANSWER_TYPE_WEIGHT}`);
      }
      if (current && revisesEarlier(text)) {
        score *= REVISION_WEIGHT;
        notes.push(`revises something said before ×${REVISION_WEIGHT}`);
      }
    }
    return { hit, score, notes };
  });
  // Stable: equal scores keep the search's order.
  const order = weighted.map((w, i) => [w, i] as const).sort((a, b) => b[0].score - a[0].score || a[1] - b[1]).map(([w]) => w);
  const best = order[0]!.score;
  if (best <= 0 || off.includes("diversity")) return order.slice(0, keep);
  const remaining = order.map((w) => ({ w, relevance: w.score / best, similarity: 0, terms: termsFor(w.hit.message) }));
  const out: RankedHit[] = [];
  while (out.length < keep && remaining.length > 0) {
    let at = 0;
    let value = -Infinity;
    for (let i = 0; i < remaining.length; i++) {
      const r = remaining[i]!;
      const v = MMR_LAMBDA * r.relevance - (1 - MMR_LAMBDA) * r.similarity;
      if (v > value) {
        value = v;
        at = i;
      }
    }
    const [chosen] = remaining.splice(at, 1);
    out.push(chosen!.w);
    // Incremental MMR: each candidate's greatest overlap with the kept ones, updated by the newest.
    for (const r of remaining) r.similarity = Math.max(r.similarity, overlap(r.terms, chosen!.terms));
  }
  return out;
}

/**
 * The candidates recall considers for `query`, best first: with ranking "recall" a pool of
 * poolSize(wanted) hits reordered by rankForRecall; with "search" the search's own top `wanted`.
 * (The recall strategy and the eval's rank diagnostic both call this, so they rank alike.)
 */
export async function recallCandidates(
  source: Pick<HistorySearch, "search">,
  query: string,
  wanted: number,
  ranking: "recall" | "cues" | "search",
  options: Omit<SearchOptions, "k"> = {},
  toggle: { off?: readonly RankingRule[]; on?: readonly RankingRule[] } = {},
): Promise<RankedHit[]> {
  if (ranking === "search") return (await source.search(query, { ...options, k: wanted })).map((hit) => ({ hit, score: hit.score, notes: [] }));
  const rules = [...new Set([...RANKING_RULES[ranking], ...(toggle.on ?? [])])].filter((r) => !toggle.off?.includes(r));
  return rankForRecall(query, await source.search(query, { ...options, k: poolSize(wanted, rules) }), wanted, rules);
}
