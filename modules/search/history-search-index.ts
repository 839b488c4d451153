/**
 * HistorySearchIndex: ranked search over a history (an array that grows by push until it is
 * replaced), BM25 via minisearch — chosen over @orama/orama (async API, larger, schema-typed
 * documents we do not need) and wink-bm25-text-search (must be consolidated before searching and
 * cannot add afterwards): minisearch adds and removes documents incrementally, is small, typed,
 * dependency-free and maintained.
 *
 * | history change                         | index work on the next search              |
 * |----------------------------------------|---------------------------------------------|
 * | messages appended (addMessage)          | the new messages only (O(new))              |
 * | replaced (setMessages, clearRun, clear) | rebuilt once (prefix of the same objects checked in O(n) reference compares); when the same objects still make most of it (a tail cut or swapped) only the tail is taken out and re-indexed |
 * | resume (a context opened on 10k+ messages) | built on the first search (or in the background after `warm()`), in time slices of `sliceMs` (25 ms) with a yield to the event loop between them |
 *
 * Each message is one document with two fields (message-text.ts searchableParts): `prose` (what
 * was written, outside fenced code; with the speaker's `name` of a user or assistant message) and `code` (tool calls, tool results, fenced blocks), each
 * BM25-normalised on its own and code weighted CODE_BOOST (0.5) — so a log pasted under a one-line
 * statement does not bury the statement. Scores are plain BM25 sums (minisearch's multiplier by
 * the number of matched query terms is divided out).
 *
 * Nothing is indexed before the first search: a session that never searches pays nothing.
 * Documents are keyed by position in the history; hits carry the position and metadata.id.
 *
 * With an embedder, messages are also embedded — in the background, off the turn's path, keyed by
 * their text so a rebuild or a resume with an archive does not re-embed (message-vectors.ts) — and
 * lexical and vector rankings are fused by reciprocal rank fusion (`score` is then the fused
 * score), or — SearchOptions `mixing: "zscore"` — their scores standardised over the candidates and
 * summed (score-mixing.ts). A message not embedded yet is in the lexical ranking only (with z-score
 * mixing: on its lexical score alone). `search()` embeds its query (one text) and waits for it; `turnPath` — what strategies on the request path get — never waits
 * for any embedding: a query whose vector is not known yet is answered lexically.
 */
import MiniSearch from "minisearch";
import type { Message } from "@amplifier-ts/contracts";
import type { Embedder, HistorySearch, SearchFeedback, SearchFilter, SearchHit, SearchOptions } from "@amplifier-ts/contracts";
import { createError, idOf, knownFacts } from "@amplifier-ts/contracts";
import { DenseRows } from "./dense-rows.js";
import { MessageVectors, type VectorArchive, type VectorStats } from "./message-vectors.js";
import { recordCallNames, searchableParts, searchableText, toolNamesOf } from "./message-text.js";
import { reciprocalRankFusion } from "./reciprocal-rank-fusion.js";
import { DEFAULT_DENSE_WEIGHT, zScoreMix } from "./score-mixing.js";
import { tokenize } from "./tokenizer.js";

export const DEFAULT_K = 8;

export interface HistorySearchIndexOptions {
  /** With an embedder: hybrid ranking (BM25 + cosine, fused by RRF); messages embedded in the background. */
  embedder?: Embedder;
  /** Where vectors outlive the process, so a resume does not embed again (context-persistent: the session's attachments). */
  vectorArchive?: VectorArchive;
  /** Texts per embed() call of the background embedding. Default 32. */
  embedBatchSize?: number;
  /** Longest the event loop is held while catching up on a backlog, ms (checked every 32 messages). Default 25. */
  sliceMs?: number;
  /** Name used in errors. */
  module?: string;
  /** Backlog (messages) above which ready() is false: strategies then warm() instead of waiting. Default 5,000. */
  backgroundBacklog?: number;
  /** Index the speaker's `name` of user and assistant messages with their prose. Default true. */
  speakers?: boolean;
}

export interface IndexStats {
  /** Messages in the index. */
  indexed: number;
  /** Times the index was thrown away because the history was replaced (not the first build). */
  rebuilds: number;
  /** Duration of the last catch-up that indexed more than one chunk, ms. */
  lastCatchUpMs: number;
  /** Times a replaced history kept most of the index as its prefix and only the tail was taken out. */
  rewinds: number;
}

interface Doc {
  id: number;
  /** Distinct terms of the message's prose, space-separated. */
  prose: string;
  /** Distinct terms of its tool calls, tool results and code blocks. */
  code: string;
}

export class HistorySearchIndex {
  readonly #source: () => readonly Message[];
  readonly #embedder: Embedder | undefined;
  readonly #vectors: MessageVectors | undefined;
  readonly #sliceMs: number;
  readonly #backgroundBacklog: number;
  readonly #module: string;
  readonly #speakers: boolean;
  #mini = newMini();
  /** The message objects indexed, by position (what the prefix check compares against). */
  #indexed: Message[] = [];
  #idToPosition = new Map<string, number>();
  #documentFrequency = new Map<string, number>();
  #callNames = new Map<string, string>();
  #catchingUp: Promise<void> | undefined;
  /** The indexed messages' vectors by position, contiguous (with an embedder). */
  readonly #dense = new DenseRows();
  readonly stats: IndexStats = { indexed: 0, rebuilds: 0, lastCatchUpMs: 0, rewinds: 0 };

  constructor(source: () => readonly Message[], options: HistorySearchIndexOptions = {}) {
    this.#source = source;
    this.#embedder = options.embedder;
    this.#sliceMs = options.sliceMs ?? 25;
    this.#vectors = options.embedder
      ? new MessageVectors(source, {
          embedder: options.embedder,
          sliceMs: this.#sliceMs,
          module: options.module ?? "search",
          ...(options.vectorArchive ? { archive: options.vectorArchive } : {}),
          ...(options.embedBatchSize ? { batchSize: options.embedBatchSize } : {}),
        })
      : undefined;
    this.#backgroundBacklog = options.backgroundBacklog ?? 5_000;
    this.#module = options.module ?? "search";
    this.#speakers = options.speakers ?? true;
  }

  get hasEmbedder(): boolean {
    return this.#embedder !== undefined;
  }

  /** Counts of the background embedding (texts embedded, embed() calls, vectors reused); undefined without an embedder. */
  get vectorStats(): Readonly<VectorStats> | undefined {
    return this.#vectors?.stats;
  }

  /** The history changed (a message added, replaced, resumed): embed what has no vector yet, in the background. */
  noteChanged(): void {
    this.#vectors?.schedule();
  }

  /** Stops the background embedding and writes the vectors the archive has queued (the context's close). */
  async close(): Promise<void> {
    await this.#vectors?.close();
  }

  /** Resolves once every stored message is indexed and (with an embedder) embedded; rejects with the embedder's error. */
  async indexReady(): Promise<void> {
    await this.catchUp();
    await this.#vectors?.whenReady();
    // The history may have grown while the vectors were computed: index that too.
    await this.catchUp();
  }

  /**
   * The search as strategies on the request path get it (CompactionContext.search): the same
   * ranking, but no embedding is waited for — a query whose vector is not known yet is answered
   * lexically (its embedding starts, for the next request).
   */
  readonly turnPath: HistorySearch = {
    search: (query, options) => this.#search(query, options ?? {}, false),
    ready: () => this.ready(),
    warm: () => this.warm(),
  };

  /** Ranked hits for `query` (see SearchOptions in contracts/search.ts); with an embedder, its query is embedded first. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.#search(query, options, true);
  }

  async #search(query: string, options: SearchOptions, waitForQuery: boolean): Promise<SearchHit[]> {
    const { k, neighbours } = checkOptions(query, options, this.#module);
    await this.catchUp();
    if (k === 0) return [];
    const limit = this.#limitFor(options.before);
    const accept = this.#acceptor(options.filter, limit);
    const terms = this.#queryTerms(query);
    let lexical = this.#lexical(terms, accept);
    if (options.feedback && lexical.length > 0) {
      const expansion = this.#expansion(terms, lexical, options.feedback);
      if (expansion.size > 0) lexical = this.#lexical([...terms, ...expansion.keys()], accept, expansion);
    }
    let ranked: { position: number; score: number; terms?: string[] }[] = lexical.slice(0, this.#vectors ? Math.max(k * 4, 50) : k);
    if (this.#vectors) {
      const vector = await this.#vectors.queryVector(query, { wait: waitForQuery });
      if (vector) {
        ranked =
          options.mixing === "zscore"
            ? this.#mix(vector, lexical, accept, limit, filterKey(options.filter), k, options.denseWeight ?? DEFAULT_DENSE_WEIGHT)
            : this.#fuse(vector, ranked, accept, limit, filterKey(options.filter), k);
      }
    }
    return ranked.slice(0, k).map(({ position, score, terms }) => this.#hit(position, score, terms, neighbours));
  }

  /** BM25 over `terms` (each weighted 1, or its `weights` entry), best first. */
  #lexical(terms: readonly string[], accept: (p: number) => boolean, weights?: ReadonlyMap<string, number>): { position: number; score: number; terms: string[] }[] {
    return (
      this.#mini
        .search(terms.join(" "), { filter: (r) => accept(r.id as number), ...(weights ? { boostTerm: (term: string) => weights.get(term) ?? 1 } : {}) })
        // minisearch multiplies a document's BM25 sum by how many query terms it matched; undone:
        // that factor lets a message matching several common words ("now", "again", "up") outrank
        // one matching the query's rare, telling word.
        .map((r) => ({ position: r.id as number, score: r.score / Math.max(1, r.queryTerms.length), terms: r.queryTerms }))
        .sort((a, b) => b.score - a.score || a.position - b.position)
    );
  }

  /**
   * Pseudo-relevance feedback (RM3-style, SearchOptions.feedback): the terms of the first pass's
   * best `docs` hits, each weighted Σ over those hits of p(hit) × p(term | hit) × idf(term) —
   * p(hit) its share of their scores, p(term | hit) 1 / its distinct terms — leaving out the query's
   * own terms, terms of one message only (they add nothing but that message) and terms in more than
   * COMMON_SHARE of the messages. The best `terms` are returned with weights scaled so the best is
   * `weight` (a query term weighs 1).
   */
  #expansion(queryTerms: readonly string[], lexical: readonly { position: number; score: number }[], feedback: SearchFeedback): Map<string, number> {
    const docs = lexical.slice(0, Math.max(0, feedback.docs ?? FEEDBACK_DOCS));
    const total = docs.reduce((sum, d) => sum + d.score, 0);
    const out = new Map<string, number>();
    if (total <= 0) return out;
    const n = this.#indexed.length;
    const common = Math.max(COMMON_MIN_DOCS, n * COMMON_SHARE);
    const own = new Set(queryTerms);
    const weights = new Map<string, number>();
    for (const d of docs) {
      const parts = this.#parts(this.#indexed[d.position]!);
      const terms = new Set([...tokenize(parts.prose), ...tokenize(parts.code)]);
      const share = d.score / total / Math.max(1, terms.size);
      for (const term of terms) {
        if (own.has(term)) continue;
        const df = this.#documentFrequency.get(term) ?? 0;
        if (df < 2 || df > common) continue;
        weights.set(term, (weights.get(term) ?? 0) + share * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
      }
    }
    const best = [...weights].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, Math.max(0, feedback.terms ?? FEEDBACK_TERMS));
    const top = best[0]?.[1] ?? 0;
    const weight = feedback.weight ?? FEEDBACK_WEIGHT;
    for (const [term, w] of best) out.set(term, (weight * w) / top);
    return out;
  }

  /**
   * Brings the index up to date with the source (O(new messages) while it only grew; a rebuild
   * when it was replaced). Large backlogs are indexed in time slices, yielding between them.
   */
  async catchUp(): Promise<void> {
    while (this.#catchingUp) await this.#catchingUp;
    const source = this.#source();
    if (!this.#extends(source)) this.#rewind(source);
    if (source.length - this.#indexed.length <= SMALL_BACKLOG) return this.#indexRange(source, source.length);
    const started = performance.now();
    this.#catchingUp = (async () => {
      // Yield first: were the backlog indexed within the first slice, the IIFE would settle (and run
      // its finally) before #catchingUp is assigned below, leaving a settled promise there for good
      // — and every later catchUp() spinning on `while (#catchingUp) await #catchingUp`.
      await null;
      try {
        while (this.#indexed.length < source.length) {
          const sliceEnd = performance.now() + this.#sliceMs;
          do this.#indexRange(source, Math.min(source.length, this.#indexed.length + 32));
          while (this.#indexed.length < source.length && performance.now() < sliceEnd);
          if (this.#indexed.length < source.length) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } finally {
        this.#catchingUp = undefined;
        this.stats.lastCatchUpMs = performance.now() - started;
      }
    })();
    await this.#catchingUp;
    // The source may have changed while we yielded: index what came since (or rebuild).
    return this.catchUp();
  }

  /** False while more than `backgroundBacklog` messages wait to be indexed (resume, replaced history), or a catch-up runs. */
  ready(): boolean {
    if (this.#catchingUp) return false;
    const source = this.#source();
    const backlog = this.#extends(source) ? source.length - this.#indexed.length : source.length;
    return backlog <= this.#backgroundBacklog;
  }

  /** Starts catching up in the background (chunks, yielding between them); errors are left to the next search. */
  warm(): void {
    if (!this.#catchingUp) this.catchUp().catch(() => undefined);
  }

  /** Synchronous catch-up (benchmarks, or a caller that cannot await). */
  catchUpNow(): void {
    const source = this.#source();
    if (!this.#extends(source)) this.#rewind(source);
    this.#indexRange(source, source.length);
  }

  #extends(source: readonly Message[]): boolean {
    const indexed = this.#indexed;
    if (source.length < indexed.length) return false;
    for (let i = indexed.length - 1; i >= 0; i--) if (source[i] !== indexed[i]) return false;
    return true;
  }

  /**
   * The query's distinct terms, without those found in more than COMMON_SHARE of the messages
   * (unless that would leave none that any message holds): they add little to BM25 and cost the
   * most (long posting lists).
   */
  #queryTerms(query: string): string[] {
    const terms = [...new Set(tokenize(query))];
    const limit = Math.max(COMMON_MIN_DOCS, this.#indexed.length * COMMON_SHARE);
    const rare = terms.filter((t) => (this.#documentFrequency.get(t) ?? 0) <= limit);
    // Pruned only while a rare term is left that some message holds: "boss" (in no message) must
    // not leave a query for "who is my boss in payments" with nothing to match.
    return rare.some((t) => (this.#documentFrequency.get(t) ?? 0) > 0) ? rare : terms;
  }

  /**
   * The history was replaced. When it keeps most of what was indexed as its prefix (the same
   * message objects: the tail was cut or swapped — clearRun, a replaced last message), only the
   * documents after the common prefix are taken out (minisearch discard); else the index is
   * rebuilt from scratch.
   */
  #rewind(source: readonly Message[]): void {
    const indexed = this.#indexed;
    let common = 0;
    const end = Math.min(source.length, indexed.length);
    while (common < end && source[common] === indexed[common]) common++;
    if (common === 0 || indexed.length - common > Math.max(SMALL_BACKLOG, common)) return this.#reset();
    for (let i = indexed.length - 1; i >= common; i--) {
      const message = indexed[i]!;
      this.#mini.discard(i);
      const parts = this.#parts(message);
      const prose = new Set(tokenize(parts.prose));
      for (const term of new Set([...prose, ...tokenize(parts.code)])) {
        const n = (this.#documentFrequency.get(term) ?? 1) - 1;
        if (n > 0) this.#documentFrequency.set(term, n);
        else this.#documentFrequency.delete(term);
      }
      const id = message.metadata?.id;
      if (typeof id === "string" && this.#idToPosition.get(id) === i) this.#idToPosition.delete(id);
    }
    indexed.length = common;
    this.#dense.truncate(common);
    this.stats.indexed = common;
    this.stats.rewinds++;
  }

  #reset(): void {
    this.#mini = newMini();
    this.#documentFrequency = new Map();
    this.#indexed = [];
    this.#idToPosition = new Map();
    this.#callNames = new Map();
    this.#dense.reset();
    this.stats.rebuilds++;
    this.stats.indexed = 0;
  }

  #indexRange(source: readonly Message[], end: number): void {
    const docs: Doc[] = [];
    for (let i = this.#indexed.length; i < end; i++) {
      const message = source[i]!;
      this.#indexed.push(message);
      recordCallNames(message, this.#callNames);
      const id = message.metadata?.id;
      if (typeof id === "string" && !this.#idToPosition.has(id)) this.#idToPosition.set(id, i);
      // Indexed as its distinct terms (BM25 with binary term frequency: chat messages are short,
      // and it halves the index work); document frequencies kept for query pruning.
      const parts = this.#parts(message);
      const prose = new Set(tokenize(parts.prose));
      const code = new Set(tokenize(parts.code));
      for (const term of prose) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      for (const term of code) if (!prose.has(term)) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      docs.push({ id: i, prose: [...prose].join(" "), code: [...code].join(" ") });
    }
    if (docs.length > 0) this.#mini.addAll(docs);
    this.stats.indexed = this.#indexed.length;
  }

  /**
   * What a message is indexed by: its searchable parts, and — unless `speakers` is false — the
   * name of who wrote it (`name` of a user or assistant message) in its prose, so "what did Priya
   * say about …" finds Priya's messages.
   */
  #parts(message: Message): { prose: string; code: string } {
    const parts = searchableParts(message);
    if (this.#speakers && (message.role === "user" || message.role === "assistant") && typeof message.name === "string" && message.name !== "") {
      return { prose: `${message.name.replace(/_/g, " ")}\n${parts.prose}`, code: parts.code };
    }
    return parts;
  }

  /** Exclusive upper bound on positions (SearchOptions.before). */
  #limitFor(before: number | string | undefined): number {
    if (before === undefined) return this.#indexed.length;
    if (typeof before === "number") return Math.max(0, Math.min(before, this.#indexed.length));
    return this.#idToPosition.get(before) ?? 0;
  }

  #acceptor(filter: SearchFilter | undefined, limit: number): (position: number) => boolean {
    const messages = this.#indexed;
    if (filter === undefined) return (p) => p < limit;
    if (typeof filter === "function") return (p) => p < limit && filter(messages[p]!, p) === true;
    const roles = filter.role === undefined ? undefined : new Set(typeof filter.role === "string" ? [filter.role] : filter.role);
    const ids = filter.ids === undefined ? undefined : new Set(filter.ids);
    return (p) => {
      if (p >= limit) return false;
      const m = messages[p]!;
      if (roles && !roles.has(m.role)) return false;
      // Ids from the stored facts when the message has them (a packed or lazy message is not parsed).
      if (filter.runId !== undefined && runIdOf(m) !== filter.runId) return false;
      if (ids && !ids.has(idOf(m) as string)) return false;
      if (filter.toolName !== undefined && !toolNamesOf(m, this.#callNames).includes(filter.toolName)) return false;
      return true;
    };
  }

  /** Lexical and dense rankings fused (RRF); a message without a vector is in the lexical list only. */
  #fuse(vector: Float32Array, lexical: { position: number; score: number; terms?: string[] }[], accept: (p: number) => boolean, limit: number, key: string | undefined, k: number) {
    const vectors = this.#vectors!;
    this.#dense.sync(this.#indexed, (m) => vectors.vectorOf(m), vectors.version);
    const semantic = this.#dense.nearest(vector, accept, limit, Math.max(k * 4, 50), key);
    const terms = new Map(lexical.map((r) => [r.position, r.terms]));
    return reciprocalRankFusion([lexical.map((r) => r.position), semantic]).map(({ id, score }) => ({ position: id, score, terms: terms.get(id) ?? [] }));
  }

  /**
   * Lexical and dense scores mixed (score-mixing.ts, `mixing: "zscore"`): the candidates are the
   * best max(4k, 50) of each side; a dense-side candidate no query term matched has lexical score 0,
   * a message without a vector is mixed on its lexical score alone.
   */
  #mix(vector: Float32Array, lexical: readonly { position: number; score: number; terms?: string[] }[], accept: (p: number) => boolean, limit: number, key: string | undefined, k: number, denseWeight: number) {
    const vectors = this.#vectors!;
    const depth = Math.max(k * 4, 50);
    this.#dense.sync(this.#indexed, (m) => vectors.vectorOf(m), vectors.version);
    const semantic = this.#dense.nearest(vector, accept, limit, depth, key);
    const top = lexical.length > depth ? lexical.slice(0, depth) : lexical;
    // Lexical scores of the candidates: the top of the lexical side, and dense-side candidates further down it (0 when no term matched).
    const byPosition = new Map(top.map((r) => [r.position, r]));
    const deeper = semantic.filter((p) => !byPosition.has(p));
    if (deeper.length > 0 && lexical.length > depth) {
      const wanted = new Set(deeper);
      for (let i = depth; i < lexical.length; i++) if (wanted.has(lexical[i]!.position)) byPosition.set(lexical[i]!.position, lexical[i]!);
    }
    const candidates = [...top.map((r) => r.position), ...deeper];
    const mixed = zScoreMix(
      candidates.map((p) => byPosition.get(p)?.score ?? 0),
      candidates.map((p) => this.#dense.score(vector, p)),
      denseWeight,
    );
    return candidates
      .map((position, i) => ({ position, score: mixed[i]!, terms: byPosition.get(position)?.terms ?? [] }))
      .sort((a, b) => b.score - a.score || a.position - b.position);
  }

  #hit(position: number, score: number, terms: string[] | undefined, neighbours: number): SearchHit {
    const message = this.#indexed[position]!;
    // From the stored facts when the message has them: a packed or lazily loaded message is not parsed for its id.
    const id = idOf(message);
    return {
      id: id ?? `#${position}`,
      index: position,
      score,
      message,
      ...(terms ? { terms } : {}),
      ...(neighbours > 0
        ? { neighbours: { before: this.#indexed.slice(Math.max(0, position - neighbours), position), after: this.#indexed.slice(position + 1, position + 1 + neighbours) } }
        : {}),
    };
  }
}

/** Backlogs up to this many messages are indexed in one go (the usual case: what came since the last search). */
const SMALL_BACKLOG = 256;
/** Query terms in more than this share of the messages are dropped (see #queryTerms). */
const COMMON_SHARE = 0.2;
const COMMON_MIN_DOCS = 50;
/** Pseudo-relevance feedback defaults (SearchFeedback): hits the expansion comes from, terms added, weight of the best one. */
export const FEEDBACK_DOCS = 5;
export const FEEDBACK_TERMS = 10;
export const FEEDBACK_WEIGHT = 0.5;
/** Weight of the code field (tool calls, tool results, code blocks) against prose (1). */
const CODE_BOOST = 0.5;

function newMini(): MiniSearch<Doc> {
  // Documents and queries arrive as space-separated terms of tokenize() (terms hold no spaces).
  return new MiniSearch<Doc>({
    fields: ["prose", "code"],
    storeFields: [],
    tokenize: splitTerms,
    processTerm: (term) => term,
    searchOptions: { boost: { code: CODE_BOOST } },
  });
}

function splitTerms(text: string): string[] {
  return text === "" ? [] : text.split(" ");
}

/**
 * What an object filter accepts, as a string (DenseRows reuses a dense answer only under the same
 * key); undefined for a function filter or a tool name (what they accept is not fixed by the filter alone).
 */
function filterKey(filter: SearchFilter | undefined): string | undefined {
  if (filter === undefined) return "";
  if (typeof filter === "function" || filter.toolName !== undefined) return undefined;
  const roles = filter.role === undefined ? undefined : [...new Set(typeof filter.role === "string" ? [filter.role] : filter.role)].sort();
  const ids = filter.ids === undefined ? undefined : [...new Set(filter.ids)].sort();
  return JSON.stringify([roles, filter.runId, ids]);
}

function checkOptions(query: string, options: SearchOptions, module: string): { k: number; neighbours: number } {
  if (typeof query !== "string") {
    throw createError("INVALID_ARGUMENT", "search expects a query string", { module, path: "query", expected: "a string", given: query });
  }
  const k = options.k ?? DEFAULT_K;
  if (!Number.isInteger(k) || k < 0) throw createError("INVALID_ARGUMENT", "search option k must be a non-negative integer", { module, path: "k", expected: "an integer ≥ 0", given: k });
  const neighbours = options.neighbours ?? 0;
  if (!Number.isInteger(neighbours) || neighbours < 0) {
    throw createError("INVALID_ARGUMENT", "search option neighbours must be a non-negative integer", { module, path: "neighbours", expected: "an integer ≥ 0", given: neighbours });
  }
  const before = options.before;
  if (before !== undefined && !(typeof before === "string" || (typeof before === "number" && Number.isInteger(before)))) {
    throw createError("INVALID_ARGUMENT", "search option before must be a stored position or a message id", { module, path: "before", expected: "an integer or a message id", given: before });
  }
  if (options.mixing !== undefined && options.mixing !== "rrf" && options.mixing !== "zscore") {
    throw createError("INVALID_ARGUMENT", "search option mixing must be \"rrf\" or \"zscore\"", { module, path: "mixing", expected: "\"rrf\" | \"zscore\"", given: options.mixing });
  }
  const denseWeight = options.denseWeight;
  if (denseWeight !== undefined && !(typeof denseWeight === "number" && Number.isFinite(denseWeight) && denseWeight >= 0)) {
    throw createError("INVALID_ARGUMENT", "search option denseWeight must be a finite number ≥ 0", { module, path: "denseWeight", expected: "a number ≥ 0", given: denseWeight });
  }
  const filter = options.filter;
  if (filter !== undefined && typeof filter !== "function" && (typeof filter !== "object" || filter === null)) {
    throw createError("INVALID_ARGUMENT", "search option filter must be an object or a function", { module, path: "filter", expected: "{ role?, runId?, toolName?, ids? } | (message, index) => boolean", given: filter });
  }
  return { k, neighbours };
}

/** metadata.runId (when a string), from the stored facts when the message has them. */
function runIdOf(message: Message): string | undefined {
  const facts = knownFacts(message);
  if (facts) return facts.runId;
  const runId = message.metadata?.runId;
  return typeof runId === "string" ? runId : undefined;
}
