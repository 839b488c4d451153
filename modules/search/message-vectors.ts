/**
 * MessageVectors: the dense side of a history's search, computed off the turn's path.
 *
 * | what                          | how                                                                                  |
 * |-------------------------------|--------------------------------------------------------------------------------------|
 * | when messages are embedded    | in the background, as soon as `schedule()` is called (the context calls it after every change of the history and at resume) — batches of `batchSize` texts, one embed() call at a time; nobody waits for it |
 * | a message not embedded yet    | has no vector: the ranking leaves it out of the dense list, so it ranks by its lexical score alone |
 * | what a vector is keyed by     | the message's searchable text (message-text.ts), hashed: an unchanged message keeps its vector across setMessages, rebuilds and resumes; an edited one is embedded again |
 * | a resume                      | the `archive` (vectors an earlier process kept: files beside a JSONL session, a PostgreSQL table, a Redis hash — context-persistent) is read before anything is embedded; a message found there is not embedded again |
 * | the query                     | `queryVector(text, { wait })`: a search the caller awaits embeds it (one text); the turn's path never waits — it takes a vector already known (the text of a stored message, or the recall query of the newest user message, embedded with it) and otherwise goes lexical, starting the query's embedding for the next request of the turn |
 * | `whenReady()`                 | resolves once every message of the history has a vector (batch jobs, evaluations); rejects with the embedder's error when a batch failed (the next call retries) |
 * | ranking                       | cosine over unit vectors (normalised when stored), best `limit` of the accepted positions — a scan of the stored vectors, no embedding |
 *
 * Vectors of another embedder (another `name`) are never used: the archive keeps the embedder's
 * name and dimensions, and vectors of another name are ignored (and replaced as the messages are
 * embedded again).
 */
import { createHash } from "node:crypto";
import type { Embedder, Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { searchableText } from "./message-text.js";
import { recallQuery } from "./recall-query.js";
import { dot } from "./dot.js";

/** Where vectors outlive the process (a resume finds them); see context-persistent's vector attachment. */
export interface VectorArchive {
  /** The vectors kept for `embedder` (by vectorKey); read once, before anything is embedded. Vectors of another embedder are not returned. */
  load(embedder: string): Promise<Iterable<readonly [string, Float32Array]>>;
  /** Vectors just computed, to be kept: queued, written off the turn's path. */
  save(embedder: string, entries: readonly (readonly [string, Float32Array])[]): void;
  /** Resolves once everything saved so far is written. */
  flush(): Promise<void>;
}

export interface MessageVectorsOptions {
  embedder: Embedder;
  archive?: VectorArchive;
  /** Texts per embed() call. Default 32. */
  batchSize?: number;
  /** Name used in errors. */
  module?: string;
  /** Longest the event loop is held while matching a resumed history with known vectors, ms. Default 25. */
  sliceMs?: number;
}

export interface VectorStats {
  /** Texts sent to the embedder (messages and queries). */
  embeddedTexts: number;
  /** embed() calls made. */
  embedCalls: number;
  /** Messages that found their vector already known (archive, or an earlier copy of the message). */
  reused: number;
}

export class MessageVectors {
  readonly #source: () => readonly Message[];
  readonly #embedder: Embedder;
  readonly #archive: VectorArchive | undefined;
  readonly #batchSize: number;
  readonly #module: string;
  readonly #sliceMs: number;
  /** Unit vectors by message object (what the ranking reads: one WeakMap look-up per message). */
  readonly #byMessage = new WeakMap<Message, Float32Array>();
  /** Unit vectors by vectorKey (text hash) — of messages and of queries: across copies, rebuilds and resumes. */
  readonly #byKey = new Map<string, Float32Array>();
  readonly #queryPending = new Map<string, Promise<Float32Array | undefined>>();
  /** Positions before this one of `#scanned` have a vector (or were tried). */
  #cursor = 0;
  #scanned: readonly Message[] | undefined;
  #running: Promise<void> | undefined;
  #loaded: Promise<void> | undefined;
  #error: unknown;
  #dimensions: number | undefined;
  #closed = false;
  /** Bumped whenever a message gets its vector (DenseRows.sync skips its look-ups while it is unchanged). */
  #version = 0;
  readonly stats: VectorStats = { embeddedTexts: 0, embedCalls: 0, reused: 0 };

  constructor(source: () => readonly Message[], options: MessageVectorsOptions) {
    this.#source = source;
    this.#embedder = options.embedder;
    this.#archive = options.archive;
    this.#batchSize = options.batchSize ?? 32;
    this.#module = options.module ?? "search";
    this.#sliceMs = options.sliceMs ?? 25;
    this.#dimensions = options.embedder.dimensions;
  }

  get embedderName(): string {
    return this.#embedder.name;
  }

  /** Changes whenever some message gets its vector. */
  get version(): number {
    return this.#version;
  }

  /** The message's unit vector, when it has been embedded. */
  vectorOf(message: Message): Float32Array | undefined {
    return this.#byMessage.get(message);
  }

  /** True while messages of the history wait for their vectors. */
  get pending(): boolean {
    const source = this.#source();
    return this.#running !== undefined || this.#scanned !== source || this.#cursor < source.length;
  }

  /** Starts embedding what has no vector yet, in the background (no-op while it runs: the run picks up what came since). */
  schedule(): void {
    if (this.#running || this.#closed) return;
    const running: Promise<void> = this.#run()
      .catch((error: unknown) => void (this.#error = error))
      .finally(() => {
        if (this.#running === running) this.#running = undefined;
      });
    this.#running = running;
  }

  /** Resolves once every message of the history has a vector; rejects with the embedder's error (the next call retries). */
  async whenReady(): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      this.#error = undefined;
      this.schedule();
      while (this.#running) await this.#running;
      if (this.#error !== undefined) {
        const error = this.#error;
        this.#error = undefined;
        throw error;
      }
      const source = this.#source();
      if (this.#scanned === source && this.#cursor >= source.length) {
        await this.#archive?.flush();
        return;
      }
    }
  }

  /**
   * The unit vector of a query text. Known (a stored message's text, or a query embedded before):
   * at once. Else with `wait` it is embedded now; without, undefined — and its embedding starts in
   * the background, so the next request with the same query has it.
   */
  async queryVector(text: string, options: { wait: boolean }): Promise<Float32Array | undefined> {
    const known = this.#knownQuery(text);
    if (known) return known;
    let pending = this.#queryPending.get(text);
    if (!pending) {
      const started = this.#embedQueries([text]).then(() => this.#byKey.get(vectorKey(text)));
      pending = started;
      this.#queryPending.set(text, started);
      started.then(
        () => this.#queryPending.delete(text),
        () => this.#queryPending.delete(text),
      );
    }
    return options.wait ? pending : undefined;
  }

  /**
   * The `limit` nearest of the positions `accept` lets through, best first, by cosine with `query`
   * (a unit vector). Messages without a vector are left out.
   */
  nearest(query: Float32Array, messages: readonly Message[], accept: (position: number) => boolean, limit: number): number[] {
    const best: { position: number; score: number }[] = [];
    const dims = query.length;
    for (let p = 0; p < messages.length; p++) {
      const vector = this.#byMessage.get(messages[p]!);
      if (vector === undefined || vector.length !== dims || !accept(p)) continue;
      const score = dot(vector, 0, query, dims);
      if (best.length === limit && score <= best[limit - 1]!.score) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.score < score) at--;
      best.splice(at, 0, { position: p, score });
      if (best.length > limit) best.pop();
    }
    return best.map((b) => b.position);
  }

  /**
   * Stops the background embedding (an embed() in flight is not waited for; its vectors are
   * dropped) and writes what the archive has queued. Nothing is embedded afterwards.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#archive?.flush();
  }

  #knownQuery(text: string): Float32Array | undefined {
    return this.#byKey.get(vectorKey(text));
  }

  async #run(): Promise<void> {
    await (this.#loaded ??= this.#load());
    for (;;) {
      if (this.#closed) return;
      const source = this.#source();
      if (this.#scanned !== source) this.#rescan(source);
      if (this.#cursor >= source.length) break;
      const batch: { message: Message; key: string; text: string }[] = [];
      const copies: { message: Message; key: string }[] = [];
      const sliceEnd = performance.now() + this.#sliceMs;
      let i = this.#cursor;
      while (i < source.length && batch.length < this.#batchSize) {
        const message = source[i]!;
        i++;
        if (this.#byMessage.has(message)) continue;
        const text = searchableText(message);
        const key = vectorKey(text);
        const known = this.#byKey.get(key);
        if (known) {
          this.#byMessage.set(message, known);
          this.#version++;
          this.stats.reused++;
        } else if (batch.some((b) => b.key === key)) {
          copies.push({ message, key });
        } else {
          batch.push({ message, key, text });
        }
        if ((i & 63) === 0 && performance.now() > sliceEnd) break;
      }
      if (batch.length > 0) {
        const vectors = await this.#embed(batch.map((b) => b.text));
        if (this.#closed) return;
        const saved: [string, Float32Array][] = [];
        batch.forEach((b, j) => {
          const vector = vectors[j]!;
          this.#byKey.set(b.key, vector);
          this.#byMessage.set(b.message, vector);
          this.#version++;
          saved.push([b.key, vector]);
        });
        for (const copy of copies) this.#byMessage.set(copy.message, this.#byKey.get(copy.key)!);
        this.#version += copies.length;
        this.#archive?.save(this.#embedder.name, saved);
      } else {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // Positions of the array scanned; were the history replaced meanwhile, the next pass rescans it (known vectors reused).
      this.#cursor = i;
    }
    if (!this.#closed) await this.#embedNewestQuery();
  }

  /** A new array (setMessages, clear, a run cleared): start over from its first message that has no vector. */
  #rescan(source: readonly Message[]): void {
    this.#scanned = source;
    let i = 0;
    while (i < source.length && this.#byMessage.has(source[i]!)) i++;
    this.#cursor = i;
  }

  /** The recall query of the newest user message (its question clauses), embedded with it so the turn finds it ready. */
  async #embedNewestQuery(): Promise<void> {
    const source = this.#source();
    for (let i = source.length - 1; i >= 0; i--) {
      const message = source[i]!;
      if (message.role !== "user") continue;
      const query = recallQuery(searchableText(message)).text;
      if (query !== "" && this.#knownQuery(query) === undefined) await this.#embedQueries([query]);
      return;
    }
  }

  /** Query vectors are kept (and archived) like messages' vectors: a resume finds the newest prompt's query ready too. */
  async #embedQueries(texts: string[]): Promise<void> {
    const vectors = await this.#embed(texts);
    if (this.#closed) return;
    const saved: [string, Float32Array][] = texts.map((text, i) => [vectorKey(text), vectors[i]!]);
    for (const [key, vector] of saved) this.#byKey.set(key, vector);
    this.#archive?.save(this.#embedder.name, saved);
  }

  /** One embed() call; the vectors checked (one per text, all of one length) and made unit length. */
  async #embed(texts: string[]): Promise<Float32Array[]> {
    this.stats.embedCalls++;
    this.stats.embeddedTexts += texts.length;
    const vectors = await this.#embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw createError("INVALID_ARGUMENT", `embedder "${this.#embedder.name}" returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`, {
        module: this.#module,
        path: "embedder.embed",
        expected: "one vector per text, in order",
        given: Array.isArray(vectors) ? `${vectors.length} vectors` : vectors,
      });
    }
    return vectors.map((vector) => {
      const dims = this.#dimensions ?? vector?.length;
      if (!(vector instanceof Float32Array || Array.isArray(vector)) || vector.length === 0 || vector.length !== dims) {
        throw createError("INVALID_ARGUMENT", `embedder "${this.#embedder.name}" returned a vector that is not ${dims ?? "a non-empty"} numbers long`, {
          module: this.#module,
          path: "embedder.embed",
          expected: `Float32Array(${dims ?? "n"})`,
          given: vector?.length,
        });
      }
      this.#dimensions = dims;
      return unit(vector);
    });
  }

  async #load(): Promise<void> {
    if (!this.#archive) return;
    for (const [key, vector] of await this.#archive.load(this.#embedder.name)) {
      if (this.#dimensions === undefined) this.#dimensions = vector.length;
      if (vector.length === this.#dimensions) this.#byKey.set(key, unit(vector));
    }
  }
}

/** What a vector is keyed by: a hash of the text it was computed from (96 bits, base64url). */
export function vectorKey(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 16);
}

function unit(vector: Float32Array | readonly number[]): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  if (norm === 0 || !Number.isFinite(norm)) return out;
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}
