/**
 * QMSum (Zhong, Yin, Yu, Zaidi, Mutuma, Jha, Awadallah, Celikyilmaz, Liu, Qiu, Radev: *QMSum: A
 * New Benchmark for Query-based Multi-domain Meeting Summarization*, NAACL 2021 — arXiv
 * 2104.05938, https://github.com/Yale-LILY/QMSum, MIT licence): 232 meetings transcribed from
 * recordings of people talking — AMI product-design meetings, ICSI research-group meetings, and
 * Welsh Parliament / Canadian House of Commons committee sittings — each with queries written by
 * human annotators, every specific query with the transcript turns that answer it marked
 * (`relevant_text_span`, inclusive turn ranges). The second development set of the recall eval
 * (issue 30), beside REALTALK (test/eval/realtalk.ts).
 *
 * Nothing is vendored: fetch it (test/eval/data/qmsum/README.md) into `.cache/eval/qmsum/` (or
 * point `QMSUM_DIR` at a folder holding the per-meeting `*.json` files, directly or in
 * `train/`, `val/`, `test/` sub-folders as the repository's `data/ALL/` has them). A folder named
 * locomo is never read (LoCoMo is this project's held-out judge).
 *
 * As a history, a meeting is one session: a header user message "[Meeting <name>]" and then
 * every transcript turn as a `user` message (a meeting has no assistant: many people speak) with
 * `name` = the speaker and `metadata.id` = `T<turn index>`. The transcripts' markup codes
 * (`{vocalsound}`, `{disfmarker}`, `{gap}`, …) are removed; a turn left empty is no message, and
 * its id leaves the evidence. A question is a specific query (the general "summarise the whole
 * meeting" queries mark no turns and are left out) appended as the newest user message; its
 * evidence is every turn of its spans. Its category is the meeting's domain: 1 product (AMI),
 * 2 academic (ICSI), 3 committee (parliament).
 *
 * Split: as REALTALK's, held out when fnv1a(`<meeting>#<index>`) % 3 === 0 (about a third), else
 * development. Held-out figures are reported as aggregates only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Message } from "../../contracts/generated/message.js";
import { fnv1a, splitOf, type DialogueConversation, type DialogueQuestion } from "./realtalk.js";

/** The commit the figures were measured on. */
export const QMSUM_COMMIT = "83d7768c1f2b4dfeb091385d3dc7e239b8e5bb7e";
export const QMSUM_REPOSITORY = "https://github.com/Yale-LILY/QMSum";

/** Category numbers (the meeting's domain) and their names. */
export const QMSUM_DOMAINS: Readonly<Record<number, string>> = { 1: "product (AMI)", 2: "academic (ICSI)", 3: "committee (parliament)" };

/** Where the data is looked for: QMSUM_DIR, else .cache/eval/qmsum under the repository root. */
export function qmsumDir(root = process.cwd()): string {
  return resolve(process.env.QMSUM_DIR ?? join(root, ".cache/eval/qmsum"));
}

/** 1 product (AMI: ES2004a, IS1003b, TS3011c), 2 academic (ICSI: Bed003, Bmr014, Bro019), 3 committee (the rest). */
export function domainOf(meeting: string): number {
  if (/^[A-Z]{2}\d{4}[a-z]$/.test(meeting)) return 1;
  if (/^B[a-z]{2}\d{3}$/.test(meeting)) return 2;
  return 3;
}

/** A transcript turn without its markup codes ("{vocalsound}", "{disfmarker}", …), spaces collapsed. */
export function cleanTurn(text: string): string {
  return text
    .replace(/\{[a-z_]+\}/gi, " ")
    .replace(/\s+([.,?!])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

interface RawTurn {
  speaker?: unknown;
  content?: unknown;
}

interface RawQuery {
  query?: unknown;
  answer?: unknown;
  relevant_text_span?: unknown;
}

/** The turn indices a `relevant_text_span` names (inclusive ranges of string or number pairs); [] when malformed. */
export function spanTurns(spans: unknown): number[] {
  if (!Array.isArray(spans)) return [];
  const out: number[] = [];
  for (const span of spans) {
    if (!Array.isArray(span) || span.length !== 2) continue;
    const from = Number(span[0]);
    const to = Number(span[1]);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) continue;
    for (let i = from; i <= to; i++) out.push(i);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/** One meeting file (parsed JSON) as a history and its questions. */
export function toMeeting(name: string, data: Record<string, unknown>): DialogueConversation {
  const turns = Array.isArray(data.meeting_transcripts) ? (data.meeting_transcripts as RawTurn[]) : [];
  const messages: Message[] = [{ role: "user", content: `[Meeting ${name}]`, metadata: { id: "S1" } }];
  const ids = new Set<string>();
  const speakers: string[] = [];
  turns.forEach((turn, i) => {
    const text = typeof turn.content === "string" ? cleanTurn(turn.content) : "";
    if (text === "") return;
    const speaker = typeof turn.speaker === "string" && turn.speaker.trim() ? turn.speaker.trim() : "speaker";
    if (!speakers.includes(speaker)) speakers.push(speaker);
    const id = `T${i}`;
    ids.add(id);
    messages.push({ role: "user", content: text, name: speaker.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "speaker", metadata: { id } });
  });
  const questions: DialogueQuestion[] = [];
  let dropped = 0;
  const queries = Array.isArray(data.specific_query_list) ? (data.specific_query_list as RawQuery[]) : [];
  const category = domainOf(name);
  queries.forEach((q, i) => {
    const evidence = spanTurns(q.relevant_text_span)
      .map((t) => `T${t}`)
      .filter((id) => ids.has(id));
    if (typeof q.query !== "string" || q.query.trim() === "" || evidence.length === 0) {
      dropped++;
      return;
    }
    const id = `${name}#${i}`;
    questions.push({ id, conversation: name, text: q.query.trim(), answer: String(q.answer ?? ""), category, evidence, split: splitOf(id) });
  });
  return { name, speakers: [speakers[0] ?? "speaker", speakers[1] ?? "speaker"], messages, sessions: 1, questions, dropped };
}

/** The meeting files of `dir` and of its train/val/test sub-folders (name → path), never under a locomo folder. */
function meetingFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const folder of [dir, join(dir, "train"), join(dir, "val"), join(dir, "test")]) {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
    for (const f of readdirSync(folder)) if (f.endsWith(".json") && !files.has(basename(f, ".json"))) files.set(basename(f, ".json"), join(folder, f));
  }
  return files;
}

/** Every meeting of `dir`, in name order; [] when the folder is absent or a locomo folder. */
export function loadQmsum(dir = qmsumDir()): DialogueConversation[] {
  if (!existsSync(dir) || /(^|[\\/])locomo([\\/]|$)/i.test(dir)) return [];
  return [...meetingFiles(dir)]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([name, path]) => toMeeting(name, JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>));
}

/**
 * A fixed sample of the questions (for `--limit`): per conversation, the questions whose
 * fnv1a(`<seed>:<id>`) is among the `limit` smallest over all conversations. The same seed and
 * limit always pick the same questions; the split of a question never changes.
 */
export function sampleQuestions(conversations: readonly DialogueConversation[], limit: number, seed = 1): DialogueConversation[] {
  const all = conversations.flatMap((c) => c.questions.map((q) => q.id));
  if (limit >= all.length) return [...conversations];
  const keep = new Set(
    all
      .map((id) => [id, fnv1a(`${seed}:${id}`)] as const)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, Math.max(0, limit))
      .map(([id]) => id),
  );
  return conversations.map((c) => ({ ...c, questions: c.questions.filter((q) => keep.has(q.id)) })).filter((c) => c.questions.length > 0);
}
