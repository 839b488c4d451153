/**
 * Model-free rescoring of recall's candidates (issue 30), each behind an option of the recall
 * strategy (modules/strategies/recall.ts):
 *
 * | option      | what                                                                                           |
 * |-------------|------------------------------------------------------------------------------------------------|
 * | `dates`     | a question naming date parts (a month name, a weekday, a year, a day with its month) also searches the turns whose date (`metadata.timestamp`) has those parts, and a turn so dated scores × (1 + DATE_WEIGHT × parts matched): as if each turn were indexed under its session's date words |
 * | `entities`  | a question naming a participant (a speaker `name` of the history) or an entity (a capitalised word of the question that the history holds) favours that speaker's turns and the turns mentioning it (× (1 + ENTITY_WEIGHT × names matched)); the named speaker's best turns are also searched apart (the question's other words, filtered to that speaker: turns across sessions) |
 * | `smoothing` | a turn's score plus `smoothing` × its best neighbour's (±1 in the same session, conversation turns only); a neighbour of a strong hit that shares no word with the question becomes a candidate |
 *
 * All are deterministic and cost O(candidates) besides the extra filtered searches (one each).
 */
import { idOf, type Message } from "@amplifier-ts/contracts";
import type { HistorySearch, SearchHit, SearchOptions } from "@amplifier-ts/contracts";
import { isSessionHeader, tokenize, type RankedHit } from "@amplifier-ts/search";

/** Weight per matched date part (`dates`). */
export const DATE_WEIGHT = 0.5;
/** Weight per matched name (`entities`). */
export const ENTITY_WEIGHT = 0.5;

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH_SHORT = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** The date parts a question names. */
export interface DateParts {
  readonly month?: number;
  readonly weekday?: number;
  readonly year?: number;
  /** Day of the month (only with a month: "5 June", "June 5th"). */
  readonly day?: number;
}

/** Date parts named in `text` ("last June", "in 2023", "on Monday", "31 December"); undefined when none. */
export function datePartsOf(text: string): DateParts | undefined {
  const words = text.toLowerCase().match(/[a-z]+|\d+/g) ?? [];
  let month: number | undefined;
  let weekday: number | undefined;
  let year: number | undefined;
  let day: number | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const m = w === "may" || w === "mar" ? -1 : MONTHS.indexOf(w) >= 0 ? MONTHS.indexOf(w) : MONTH_SHORT.indexOf(w);
    // "may" is a month only before or after a number ("May 5", "5 May", "May 2023").
    if (m >= 0 || (w === "may" && (isNumber(words[i + 1]) || isNumber(words[i - 1])))) {
      month = m >= 0 ? m : 4;
      const around = [words[i + 1], words[i - 1]].find((x) => isNumber(x) && Number(x) >= 1 && Number(x) <= 31);
      if (around !== undefined) day = Number(around);
      continue;
    }
    const d = WEEKDAYS.indexOf(w);
    if (d >= 0) weekday = d;
    else if (/^(19|20)\d\d$/.test(w)) year = Number(w);
  }
  if (month === undefined && weekday === undefined && year === undefined) return undefined;
  return { ...(month !== undefined ? { month } : {}), ...(weekday !== undefined ? { weekday } : {}), ...(year !== undefined ? { year } : {}), ...(day !== undefined ? { day } : {}) };
}

function isNumber(w: string | undefined): boolean {
  return w !== undefined && /^\d{1,4}$/.test(w);
}

/** How many of `parts` the message's date (`metadata.timestamp`, UTC) has; 0 without a date. */
export function dateMatches(message: Message, parts: DateParts): number {
  const at = message.metadata?.timestamp;
  if (typeof at !== "string") return 0;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return 0;
  let n = 0;
  if (parts.month !== undefined) {
    if (date.getUTCMonth() !== parts.month) return 0;
    n++;
    if (parts.day !== undefined) {
      if (date.getUTCDate() !== parts.day) return 0;
      n++;
    }
  }
  if (parts.weekday !== undefined) {
    if (date.getUTCDay() !== parts.weekday) return 0;
    n++;
  }
  if (parts.year !== undefined) {
    if (date.getUTCFullYear() !== parts.year) return 0;
    n++;
  }
  return n;
}

/** The query without its date words (what the date-filtered search looks for). */
function withoutDateWords(query: string): string {
  return query.replace(/\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:19|20)\d\d)\b/gi, " ");
}

/** Speaker names of conversation turns (`name`, underscores as spaces, lowercased) → how they are written. */
export function speakerOf(message: Message): string | undefined {
  return (message.role === "user" || message.role === "assistant") && typeof message.name === "string" && message.name !== "" ? message.name.replace(/_/g, " ").toLowerCase() : undefined;
}

/**
 * The names a question uses: capitalised words not opening it (and any word equal to a known
 * speaker's first name), lowercased; stop-word-free via the tokenizer.
 */
export function namesIn(query: string, speakers: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const m of query.matchAll(/(?<![\p{L}\p{N}])(\p{Lu}[\p{L}'’-]*)/gu)) {
    const word = m[1]!.replace(/['’]s$/i, "").toLowerCase();
    if (m.index === 0 && !speakers.has(word)) continue;
    if (tokenize(word).length === 0) continue;
    if (MONTHS.includes(word) || WEEKDAYS.includes(word)) continue;
    out.add(word);
  }
  for (const w of query.toLowerCase().match(/[\p{L}]+/gu) ?? []) if (speakers.has(w)) out.add(w);
  return [...out];
}

export interface RescoreOptions {
  dates: boolean;
  entities: boolean;
  smoothing: number;
}

type Search = Pick<HistorySearch, "search">;

/**
 * Recall's candidates rescored by the options (see the file comment), best first. `messages` is
 * the strategy's input and `positionOf` maps a hit to a position in it (neighbours are taken
 * there); `searchOptions` are those of the first search (before, filter), `wanted` its size.
 */
export async function rescore(
  hits: readonly RankedHit[],
  query: string,
  options: RescoreOptions,
  context: { source: Search; searchOptions: Omit<SearchOptions, "k">; wanted: number; messages: readonly Message[]; positionOf: (hit: SearchHit) => number | undefined; speakers: () => ReadonlySet<string> },
): Promise<RankedHit[]> {
  const byId = new Map<string, { hit: SearchHit; score: number; notes: string[] }>();
  for (const h of hits) byId.set(h.hit.id, { hit: h.hit, score: h.score, notes: [...h.notes] });
  const baseFilter = context.searchOptions.filter;
  const passes = (m: Message, i: number): boolean => {
    if (baseFilter === undefined) return true;
    if (typeof baseFilter === "function") return baseFilter(m, i) === true;
    if (baseFilter.role !== undefined && !(typeof baseFilter.role === "string" ? [baseFilter.role] : baseFilter.role).includes(m.role)) return false;
    return true;
  };
  const addFrom = async (text: string, filter: (m: Message, i: number) => boolean, weight: number) => {
    if (tokenize(text).length === 0) return;
    const extra = await context.source.search(text, { ...context.searchOptions, k: context.wanted, filter: (m, i) => passes(m, i) && filter(m, i) });
    for (const hit of extra) if (!byId.has(hit.id)) byId.set(hit.id, { hit, score: hit.score * weight, notes: [] });
  };

  if (options.dates) {
    const parts = datePartsOf(query);
    if (parts) {
      await addFrom(withoutDateWords(query), (m) => dateMatches(m, parts) > 0, 1);
      for (const c of byId.values()) {
        const n = dateMatches(c.hit.message, parts);
        if (n > 0) {
          c.score *= 1 + DATE_WEIGHT * n;
          c.notes.push(`dated as asked ×${1 + DATE_WEIGHT * n}`);
        }
      }
    }
  }

  if (options.entities) {
    const speakers = context.speakers();
    const names = namesIn(query, speakers);
    if (names.length > 0) {
      const named = new Set(names.filter((n) => speakers.has(n) || [...speakers].some((s) => s.split(" ")[0] === n)));
      if (named.size > 0) {
        const rest = query.replace(new RegExp(`\\b(?:${[...named].join("|")})(?:'s|’s)?\\b`, "gi"), " ");
        await addFrom(rest, (m) => { const s = speakerOf(m); return s !== undefined && (named.has(s) || named.has(s.split(" ")[0]!)); }, 1);
      }
      for (const c of byId.values()) {
        const s = speakerOf(c.hit.message);
        const terms = new Set(tokenize(typeof c.hit.message.content === "string" ? c.hit.message.content : ""));
        let n = 0;
        for (const name of names) {
          if (s !== undefined && (s === name || s.split(" ")[0] === name)) n++;
          else if (tokenize(name).every((t) => terms.has(t))) n++;
        }
        if (n > 0) {
          c.score *= 1 + ENTITY_WEIGHT * n;
          c.notes.push(`names what was asked about ×${1 + ENTITY_WEIGHT * n}`);
        }
      }
    }
  }

  if (options.smoothing > 0) {
    const messages = context.messages;
    const own = new Map<number, { id: string; score: number }>();
    for (const c of byId.values()) {
      const p = context.positionOf(c.hit);
      if (p !== undefined) own.set(p, { id: c.hit.id, score: c.score });
    }
    const conversational = (p: number) => {
      const m = messages[p];
      return m !== undefined && (m.role === "user" || m.role === "assistant") && !isSessionHeader(m);
    };
    const best = new Map<number, number>();
    for (const [p, { score }] of own) {
      for (const q of [p - 1, p + 1]) {
        if (q < 0 || !conversational(q) || !conversational(p)) continue;
        best.set(q, Math.max(best.get(q) ?? 0, score));
      }
    }
    const limit = context.searchOptions.before;
    for (const [q, s] of best) {
      const bonus = options.smoothing * s;
      const at = own.get(q);
      if (at !== undefined) {
        const c = byId.get(at.id)!;
        c.score += bonus;
        continue;
      }
      const m = messages[q]!;
      // The stored facts' id when there are facts: a packed neighbour is not parsed to be named.
      const id = idOf(m) ?? `#${q}`;
      // Only before the search's bound (the current turn is never a hit).
      if (typeof limit === "number" && q >= limit) continue;
      if (typeof limit === "string" && id === limit) continue;
      if (!passes(m, q) || byId.has(id)) continue;
      byId.set(id, { hit: { id, index: q, score: 0, message: m }, score: bonus, notes: ["a neighbour of a strong hit"] });
    }
  }

  const out = [...byId.values()].map((c, i) => [c, i] as const);
  out.sort((a, b) => b[0].score - a[0].score || a[1] - b[1]);
  return out.map(([c]) => ({ hit: c.hit, score: c.score, notes: c.notes }));
}
