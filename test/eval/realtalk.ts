/**
 * REALTALK (Lee, Maharana, Pujara, Ren, Barbieri, 2025 — arXiv 2502.13270,
 * https://github.com/danny911kr/REALTALK): ten 21-day conversations between pairs of real people
 * on a messaging app, each with ~70 memory-probing questions whose evidence messages are marked
 * (`dia_id`s). The messages were written by the participants, not by a model; the questions and
 * evidence marks by the authors. The development set of the recall eval (issue 19).
 *
 * The repository carries no licence, so no part of the data is kept in this repository: fetch it
 * (test/eval/data/realtalk/README.md) into `.cache/eval/realtalk/` (or point `REALTALK_DIR` at a
 * folder holding the `Chat_*.json` files). The repository also holds a copy of LoCoMo under
 * `data/locomo/`: LoCoMo is this project's held-out judge — the loader reads `Chat_*.json` files
 * of the folder it is given and never a `locomo` folder.
 *
 * As a history (what the eval feeds the context module), a conversation is, per session: a date
 * header (a user message "[Session 3 · Sunday 31 December 2023]") and the session's messages —
 * the first speaker as `user`, the second as `assistant`, each with `name` (the speaker) and
 * `metadata.id` = its `dia_id`, `metadata.timestamp` from its date_time. A question is a user
 * message appended after the last session.
 *
 * Split: a question belongs to the held-out split when fnv1a(`<conversation>#<index>`) % 3 === 0
 * (about a third), else to the development split. Tuning looks at development questions only;
 * held-out figures are reported as aggregates.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Message } from "../../contracts/generated/message.js";

/** The commit the figures in BENCHMARKS.md were measured on. */
export const REALTALK_COMMIT = "b903e06a9770bf4e5fe9018c3e132889666d3b4a";
export const REALTALK_REPOSITORY = "https://github.com/danny911kr/REALTALK";

export type Split = "dev" | "heldout";

export interface DialogueQuestion {
  /** `<conversation>#<index in its qa list>`. */
  readonly id: string;
  readonly conversation: string;
  readonly text: string;
  readonly answer: string;
  /** 1 fact, 2 date, 3 inference (the data set's categories). */
  readonly category: number;
  /** metadata.id of every evidence message. */
  readonly evidence: readonly string[];
  readonly split: Split;
}

export interface DialogueConversation {
  readonly name: string;
  readonly speakers: readonly [string, string];
  readonly messages: readonly Message[];
  readonly sessions: number;
  readonly questions: readonly DialogueQuestion[];
  /** Questions left out: no evidence, or evidence naming no message of the conversation. */
  readonly dropped: number;
}

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The deterministic split rule (see the file comment). */
export function splitOf(questionId: string): Split {
  return fnv1a(questionId) % 3 === 0 ? "heldout" : "dev";
}

/** Where the data is looked for: REALTALK_DIR, else .cache/eval/realtalk under the repository root. */
export function realtalkDir(root = process.cwd()): string {
  return resolve(process.env.REALTALK_DIR ?? join(root, ".cache/eval/realtalk"));
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** "29.12.2023, 22:42:04" → Date (UTC), or undefined. */
export function parseDateTime(text: unknown): Date | undefined {
  const m = typeof text === "string" ? /^(\d{1,2})\.(\d{1,2})\.(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(text.trim()) : null;
  if (!m) return undefined;
  const date = new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0)));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** "Sunday 31 December 2023". */
export function longDate(date: Date): string {
  return `${DAYS[date.getUTCDay()]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

interface RawMessage {
  clean_text?: unknown;
  text?: unknown;
  speaker?: unknown;
  date_time?: unknown;
  dia_id?: unknown;
}

/** One conversation file (parsed JSON) as a history and its questions. */
export function toConversation(name: string, data: Record<string, unknown>): DialogueConversation {
  const names = (data.name ?? {}) as { speaker_1?: unknown; speaker_2?: unknown };
  const sessionNumbers = Object.keys(data)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const first = typeof names.speaker_1 === "string" ? names.speaker_1 : String((data[`session_${sessionNumbers[0]}`] as RawMessage[] | undefined)?.[0]?.speaker ?? "A");
  const second = typeof names.speaker_2 === "string" ? names.speaker_2 : "B";
  const messages: Message[] = [];
  const ids = new Set<string>();
  for (const n of sessionNumbers) {
    const turns = data[`session_${n}`];
    if (!Array.isArray(turns) || turns.length === 0) continue;
    const started = parseDateTime(data[`session_${n}_date_time`]) ?? parseDateTime((turns[0] as RawMessage).date_time);
    messages.push({
      role: "user",
      content: `[Session ${n}${started ? ` · ${longDate(started)}` : ""}]`,
      metadata: { id: `S${n}`, ...(started ? { timestamp: started.toISOString() } : {}) },
    });
    for (const raw of turns as RawMessage[]) {
      const text = typeof raw.clean_text === "string" ? raw.clean_text : typeof raw.text === "string" ? raw.text : "";
      const id = typeof raw.dia_id === "string" ? raw.dia_id.trim() : "";
      if (!id || text.trim() === "") continue;
      const speaker = typeof raw.speaker === "string" ? raw.speaker : first;
      const at = parseDateTime(raw.date_time);
      ids.add(id);
      messages.push({
        role: speaker === second ? "assistant" : "user",
        content: text,
        name: speaker.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "speaker",
        metadata: { id, ...(at ? { timestamp: at.toISOString() } : {}) },
      });
    }
  }
  const questions: DialogueQuestion[] = [];
  let dropped = 0;
  const qa = Array.isArray(data.qa) ? (data.qa as { question?: unknown; answer?: unknown; evidence?: unknown; category?: unknown }[]) : [];
  qa.forEach((q, i) => {
    const evidence = Array.isArray(q.evidence) ? q.evidence.flatMap((e) => (typeof e === "string" ? evidenceIds(e) : [])) : [];
    if (typeof q.question !== "string" || evidence.length === 0 || !evidence.every((e) => ids.has(e))) {
      dropped++;
      return;
    }
    const id = `${name}#${i}`;
    questions.push({ id, conversation: name, text: q.question, answer: String(q.answer ?? ""), category: Number(q.category ?? 0), evidence: [...new Set(evidence)], split: splitOf(id) });
  });
  return { name, speakers: [first, second], messages, sessions: sessionNumbers.length, questions, dropped };
}

/**
 * The dia_ids an evidence entry names. Most entries are one id ("D3:12"); some hold several
 * ("D5:12;D5:16", "D11:17; D16:1", "D13:4. D14:4") or a range within a session ("D12:3-D12:5",
 * "D12:3-5"), and a few end in a stray "." — all read as the ids they name.
 */
export function evidenceIds(entry: string): string[] {
  const out: string[] = [];
  for (const m of entry.matchAll(/D(\d+):(\d+)(?:\s*-\s*(?:D(\d+):)?(\d+))?/g)) {
    const session = Number(m[1]);
    const from = Number(m[2]);
    const to = m[4] !== undefined && (m[3] === undefined || Number(m[3]) === session) ? Number(m[4]) : from;
    for (let i = from; i <= Math.max(from, Math.min(to, from + 50)); i++) out.push(`D${session}:${i}`);
  }
  return out;
}

/** Every `Chat_*.json` of `dir` (never a locomo folder), in name order; [] when the folder is absent. */
export function loadRealtalk(dir = realtalkDir()): DialogueConversation[] {
  if (!existsSync(dir) || /(^|[\\/])locomo([\\/]|$)/i.test(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^Chat_\d+_.*\.json$/.test(f))
    .sort((a, b) => Number(/^Chat_(\d+)/.exec(a)![1]) - Number(/^Chat_(\d+)/.exec(b)![1]))
    .map((f) => toConversation(basename(f, ".json"), JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, unknown>));
}

/** The history a question is asked on: the conversation, then the question as the newest user message. */
export function historyFor(conversation: DialogueConversation, question: DialogueQuestion): Message[] {
  return [...conversation.messages, { role: "user", content: question.text, metadata: { id: `Q:${question.id}` } }];
}
