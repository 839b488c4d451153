/**
 * Search over a context's stored history, embedders and vector stores.
 *
 * API in one screen:
 *
 * ```ts
 * const hits = await context.search("retry budget for fetchUser", { k: 5, filter: { role: "user" }, neighbours: 1 });
 * // hits: best first; hit.index is the message's position in the stored history (getMessages()).
 * ```
 *
 * - `SearchableContext.search(query, options)` exists on both built-in context modules
 *   (context-simple, context-persistent). Ranking is lexical (BM25: a message's prose and its code —
 *   tool calls, tool results, fenced blocks — are two fields, code weighted 0.5; English function
 *   words are not terms) over an index kept up to date
 *   on addMessage and rebuilt after setMessages / clear / clearRun / resume (lazily, on the first
 *   search; a large backlog in 25 ms time slices). `search()` always waits for the index;
 *   `recall` does not wait for a backlog of more than 5,000 messages (that window has no recalled
 *   messages) — `await context.searchIndex.catchUp()` after a big setMessages makes it ready.
 *   Tool calls (name + arguments) and tool results are searchable.
 * - With an `Embedder` configured, the lexical ranking and a vector ranking (cosine over a
 *   `VectorStore`) are fused by reciprocal rank fusion; `score` is then the fused score.
 * - `VectorStore`: collections, `add` (insert-if-absent),
 *   `upsert` (insert-or-replace), `query` by vector (cosine, best first), metadata filters,
 *   `delete`. A document without an embedding is embedded by the store's embedder; without an
 *   embedder that is a typed error (INVALID_ARGUMENT naming the document). Conformance suite:
 *   `describeVectorStoreContract(factory)` in @amplifier-ts/testing (testing/).
 *
 * How an embedder reaches a context module (functions cannot travel through JSON config):
 *
 * | way                                                        | who uses it                         |
 * |------------------------------------------------------------|-------------------------------------|
 * | `new HistoryContextManager({ …, embedder })`                | programmatic hosts, tests           |
 * | coordinator capability `"embedder"` (EMBEDDER_CAPABILITY),  | config-driven sessions: the host    |
 * | value: an `Embedder`, registered before the context mounts  | registers it, context-simple /      |
 * |                                                            | context-persistent read it at mount |
 *
 * The init field wins over the capability. Without either, search is lexical only (offline,
 * model-free). Strategies (`recall`) reach the search through `CompactionContext.search`.
 *
 * Contracts import nothing of ours but other contracts.
 */
import type { Message, Role } from "./generated/message.js";

/** Name of the coordinator capability holding an `Embedder`. */
export const EMBEDDER_CAPABILITY = "embedder";

/**
 * Which stored messages may be hits. An object: every given field must match (roles: any of;
 * runId: metadata.runId; toolName: a tool call or tool result of that tool; ids: metadata.id any
 * of). A function: called with the stored message and its position.
 */
export type SearchFilter =
  | {
      readonly role?: Role | readonly Role[];
      readonly runId?: string;
      readonly toolName?: string;
      readonly ids?: readonly string[];
    }
  | ((message: Message, index: number) => boolean);

export interface SearchOptions {
  /** Number of hits at most. Default 8. */
  readonly k?: number;
  readonly filter?: SearchFilter;
  /**
   * Only messages stored before this point: a position in the stored history (exclusive) or a
   * message id (that message and everything after it excluded). An unknown id gives no hits.
   */
  readonly before?: number | string;
  /** Attach up to this many stored messages on each side of each hit (`hit.neighbours`). Default 0. */
  readonly neighbours?: number;
  /**
   * Pseudo-relevance feedback (lexical ranking): the query is searched once, then again with the
   * telling terms of its best `docs` hits added at `weight` of a query term (RM3-style). Unset: one
   * pass. A search that does not support it ignores it.
   */
  readonly feedback?: SearchFeedback;
  /**
   * With an embedder: how the lexical and dense rankings are combined. "rrf" (default): reciprocal
   * rank fusion; "zscore": each side's scores standardised over the candidates and summed, the
   * dense side × `denseWeight` (modules/search/score-mixing.ts). Without an embedder: ignored.
   */
  readonly mixing?: "rrf" | "zscore";
  /** Weight of the dense side in "zscore" mixing (the lexical side weighs 1). Default 1. */
  readonly denseWeight?: number;
}

/** Pseudo-relevance feedback of a search (SearchOptions.feedback). */
export interface SearchFeedback {
  /** Hits of the first pass the expansion terms come from. Default 5. */
  readonly docs?: number;
  /** Expansion terms added at most. Default 10. */
  readonly terms?: number;
  /** Weight of the best expansion term against a query term (1); the others in proportion. Default 0.5. */
  readonly weight?: number;
}

export interface SearchHit {
  /** metadata.id of the message. */
  readonly id: string;
  /** Position in the stored history at the time of the search (getMessages()[index]). */
  readonly index: number;
  /** Higher is better; BM25 score, or the RRF score (or the z-score mix, `mixing: "zscore"`) when an embedder is fused in. */
  readonly score: number;
  readonly message: Message;
  /** Query terms found in the message (lexical ranking), for explanations. */
  readonly terms?: readonly string[];
  /** With `neighbours: n`: up to n stored messages before and after the hit, in stored order. */
  readonly neighbours?: { readonly before: readonly Message[]; readonly after: readonly Message[] };
}

/** Something that can search its stored history (both built-in context modules). */
export interface SearchableContext {
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
}

/** What a strategy gets in `CompactionContext.search`: the search over the stored history it is compacting. */
export interface HistorySearch {
  /**
   * Hits among `messages` (the strategy's input, the stored history when the strategy runs
   * first). Implementations may answer from an index of the stored history; hits whose message
   * is not in `messages` (by id) are dropped by the caller.
   */
  search(query: string, options?: SearchOptions): SearchHit[] | Promise<SearchHit[]>;
  /**
   * False while a search would first have to index a large backlog (a resumed or replaced
   * history). A strategy on the request path may then go on without hits, after `warm()` has
   * started the catch-up in the background, rather than block the window.
   */
  ready?(): boolean;
  warm?(): void;
}

/** Turns texts into vectors (one per text, same order, all of the same length). */
export interface Embedder {
  readonly name: string;
  /** Length of every vector, when known in advance. */
  readonly dimensions?: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export type MetadataValue = string | number | boolean | null;

/**
 * Metadata filter: every key must match. A scalar: equality. `{ in: [...] }`: any of.
 * A key absent from a document never matches (except `{ in: [null] }` / `null`).
 */
export type MetadataFilter = Readonly<Record<string, MetadataValue | { readonly in: readonly MetadataValue[] }>>;

export interface VectorDocument {
  readonly id: string;
  readonly content: string;
  /** Required unless the store has an embedder (then computed from `content`). */
  readonly embedding?: Float32Array | readonly number[];
  readonly metadata?: Readonly<Record<string, MetadataValue>>;
}

export interface VectorHit {
  readonly id: string;
  readonly content: string;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  readonly score: number;
  readonly metadata: Readonly<Record<string, MetadataValue>>;
}

export interface VectorQueryOptions {
  /** Default "default". */
  readonly collection?: string;
  /** Default 5. */
  readonly limit?: number;
  readonly filter?: MetadataFilter;
}

export interface VectorWriteOptions {
  /** Default "default". */
  readonly collection?: string;
}

/**
 * The vector store contract. Collections are independent namespaces,
 * created on first write. Query vectors must have the stored dimension (else INVALID_ARGUMENT).
 */
export interface VectorStore {
  readonly kind: string;
  /** Insert-if-absent: documents whose id exists in the collection are left unchanged. Returns the ids inserted. */
  add(documents: readonly VectorDocument[], options?: VectorWriteOptions): Promise<string[]>;
  /** Insert-or-replace (content, embedding and metadata replaced whole). */
  upsert(documents: readonly VectorDocument[], options?: VectorWriteOptions): Promise<void>;
  /** The `limit` closest documents by cosine similarity, best first (ties: insertion order). */
  query(embedding: Float32Array | readonly number[], options?: VectorQueryOptions): Promise<VectorHit[]>;
  /** Embeds `text` with the store's embedder first; without one a typed error. */
  queryText(text: string, options?: VectorQueryOptions): Promise<VectorHit[]>;
  get(id: string, options?: VectorWriteOptions): Promise<VectorHit | undefined>;
  /** Deletes these ids (absent ids ignored); returns how many were deleted. */
  delete(ids: readonly string[], options?: VectorWriteOptions): Promise<number>;
  count(options?: VectorWriteOptions): Promise<number>;
  collections(): Promise<string[]>;
  close?(): Promise<void>;
}
