/**
 * What to search for when a user message is the query (the `recall` strategy). A user message
 * often carries more than one need: "Can you profile the search endpoint? Quick question first:
 * who owns invoicing now?" Searched whole, the request's words (profile, search, endpoint) outrank
 * the question's (owns, invoicing) — and the request is about current work, which the recent
 * window already holds, while the question reaches back. So the message is split into sentences
 * and clauses, and when some of them ask something, only those are the query.
 *
 * | message                                                                 | query                                   |
 * |-------------------------------------------------------------------------|-----------------------------------------|
 * | "Who owns invoicing now?"                                                | the message                             |
 * | "Please fix the retry helper. One more thing: what day is the deploy?"   | "what day is the deploy?"               |
 * | "Before you carry on — if payments goes down, who should I ping?"        | "if payments goes down, who should I ping?" |
 * | "Can you profile the search endpoint?" (a request, no question word)     | the message                             |
 * | "Could you tell me who reviewed the design doc?"                         | the message (a question in request form) |
 * | "Fix the flaky test in the checkout form."                              | the message                             |
 *
 * A clause is a question when it ends with "?" and is not a request ("can/could/would/will you …",
 * "please …") — unless it holds a question word (who, what, when, where, which, why, how, whose,
 * whom) — or when it asks to be reminded ("Remind me …", "Do you remember …", "Tell me again …"),
 * whatever its punctuation, or when it reads as a question typed without its "?" ("which queue did
 * we pick", "what's the staging port": a question word, then an auxiliary within two words).
 * Lead-ins before a colon or a dash ("Quick question first:", "Hang on —") are cut off the clause
 * they introduce. Fenced code blocks are never questions. Pure text, no model: it runs on every
 * new prompt.
 */
import { FENCED } from "./message-text.js";
import { tokenize } from "./tokenizer.js";

/** A query for recall: the text to search and the part of the message it came from. */
export interface RecallQuery {
  /** The text to search for. */
  readonly text: string;
  /** "questions": the question clauses of a longer message; "message": the whole message. */
  readonly from: "questions" | "message";
}

/** Sentence ends: . ? ! followed by white space, or line breaks. */
const SENTENCE = /(?<=[.?!])\s+|\n+/;
/**
 * Clause lead-ins: "…: " and " — " / " – " / " - " (spaced dashes; a hyphen inside a word is not one).
 * A spaced dash is only tried from the first white space of a run (`(?<!\s)`): tried from every
 * space, a run of n spaces without a dash cost n²/2 steps; the run's first space is
 * where the leftmost match starts anyway, so the matches are the same.
 */
const LEAD_IN = /:\s+|(?<!\s)\s+[—–-]+\s+/;
const QUESTION_WORD = /\b(?:who|whom|whose|what|when|where|which|why|how)\b/i;
const REQUEST = /^(?:(?:can|could|would|will)\s+you\b|please\b)/i;
/** Asking to be reminded is a question whatever its punctuation ("Remind me what we picked."). */
const REMIND = /^(?:remind me|do you (?:still )?remember|tell me again)\b/i;
/**
 * A question typed without its "?" (chat often drops it): a question word, at most one word, then
 * an auxiliary — "who owns invoicing" does not qualify, "who is on call", "which queue did we
 * pick", "what's the port", "how many nodes does staging have" do; "when you get a chance, …" (no
 * auxiliary) and "what I want is …" (a subject before the auxiliary: a statement) do not. A
 * leading "and/also/so/btw/oh/but" is allowed.
 */
const UNMARKED_QUESTION =
  /^(?:(?:and|also|so|btw|oh|but)\b[\s,]*)?(?:who|whom|whose|what|when|where|which|why|how)(?:'s\b|\s+(?:many|much)\b|(?:\s+(?!(?:i|we|you|they|he|she|it)\b)[\p{L}\p{N}'-]+)?\s+(?:is|are|was|were|am|do|does|did|will|would|should|shall|can|could|has|have|had)\b)/iu;

/** The question clauses of `text`, in order (empty when it asks nothing). */
export function questionClauses(text: string): string[] {
  const out: string[] = [];
  for (const sentence of text.replace(FENCED, "\n").split(SENTENCE)) {
    const trimmed = sentence.trim();
    // The clause the sentence ends with, after its lead-ins ("One more thing: what …?").
    const parts = trimmed.split(LEAD_IN).map((p) => p.trim()).filter(Boolean);
    const clause = parts[parts.length - 1] ?? trimmed;
    if (REMIND.test(clause)) {
      out.push(clause);
      continue;
    }
    if (!trimmed.endsWith("?")) {
      if (UNMARKED_QUESTION.test(clause) && !trimmed.endsWith("!")) out.push(clause);
      continue;
    }
    if (REQUEST.test(clause) && !QUESTION_WORD.test(clause)) continue;
    out.push(clause);
  }
  return out;
}

/**
 * The recall query for a user message: its question clauses when it has some and also says
 * something else, else the whole message.
 */
export function recallQuery(text: string): RecallQuery {
  const questions = questionClauses(text);
  if (questions.length === 0) return { text, from: "message" };
  const joined = questions.join(" ");
  return joined.length < text.trim().length ? { text: joined, from: "questions" } : { text, from: "message" };
}

/**
 * True when the question clauses of `text` hold every one of `terms` and the rest of it none: the
 * message matched a query by what it asked, not by anything it said (a question holds no answer).
 */
export function matchedByQuestionsOnly(text: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  const questions = questionClauses(text);
  if (questions.length === 0) return false;
  let rest = text.replace(FENCED, "\n");
  for (const q of questions) rest = rest.replace(q, " ");
  const said = new Set(tokenize(rest));
  return terms.every((t) => !said.has(t));
}
