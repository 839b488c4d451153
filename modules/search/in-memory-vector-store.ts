/**
 * InMemoryVectorStore: the VectorStore contract (contracts/search.ts) in a Map per collection —
 * the test stand-in for pgvector. Query is a full scan computing cosine
 * similarity, then a sort: fine for a session's history (10k vectors ≈ a few ms), not a corpus.
 *
 * | call      | document already there          | document absent | no embedding given          |
 * |-----------|---------------------------------|-----------------|-----------------------------|
 * | `add`     | left unchanged (not in result)   | inserted        | embedded, or INVALID_ARGUMENT without an embedder |
 * | `upsert`  | replaced whole                   | inserted        | idem                        |
 *
 * Every vector of a collection has the dimension of its first one (else INVALID_ARGUMENT).
 */
import type { Embedder, MetadataFilter, MetadataValue, VectorDocument, VectorHit, VectorQueryOptions, VectorStore, VectorWriteOptions } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

interface Stored {
  id: string;
  content: string;
  embedding: Float32Array;
  norm: number;
  metadata: Readonly<Record<string, MetadataValue>>;
  order: number;
}

export interface InMemoryVectorStoreOptions {
  /** Computes embeddings of documents given without one, and of `queryText`. */
  embedder?: Embedder;
}

export class InMemoryVectorStore implements VectorStore {
  readonly kind = "memory";
  readonly #collections = new Map<string, Map<string, Stored>>();
  readonly #dimensions = new Map<string, number>();
  readonly #embedder: Embedder | undefined;
  #order = 0;

  constructor(options: InMemoryVectorStoreOptions = {}) {
    this.#embedder = options.embedder;
  }

  async add(documents: readonly VectorDocument[], options: VectorWriteOptions = {}): Promise<string[]> {
    const collection = collectionName(options);
    const bucket = this.#collections.get(collection);
    const fresh = documents.filter((d, i) => !bucket?.has(checkDocument(d, i).id) && documents.findIndex((e) => e.id === d.id) === i);
    const stored = await this.#prepare(fresh, collection);
    const target = this.#bucket(collection);
    for (const s of stored) target.set(s.id, s);
    return stored.map((s) => s.id);
  }

  async upsert(documents: readonly VectorDocument[], options: VectorWriteOptions = {}): Promise<void> {
    const collection = collectionName(options);
    documents.forEach(checkDocument);
    const stored = await this.#prepare(documents, collection);
    const target = this.#bucket(collection);
    for (const s of stored) {
      const previous = target.get(s.id);
      target.set(s.id, previous ? { ...s, order: previous.order } : s);
    }
  }

  async query(embedding: Float32Array | readonly number[], options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    const collection = collectionName(options);
    const limit = options.limit ?? 5;
    if (!Number.isInteger(limit) || limit < 0) {
      throw createError("INVALID_ARGUMENT", "query limit must be a non-negative integer", { module: "vector-store", path: "limit", expected: "an integer ≥ 0", given: limit });
    }
    const bucket = this.#collections.get(collection);
    if (!bucket || bucket.size === 0 || limit === 0) return [];
    const vector = toVector(embedding, "query embedding");
    this.#checkDimension(collection, vector, "query embedding");
    const norm = normOf(vector);
    const scored: { doc: Stored; score: number }[] = [];
    for (const doc of bucket.values()) {
      if (options.filter && !matches(doc.metadata, options.filter)) continue;
      scored.push({ doc, score: cosine(vector, norm, doc.embedding, doc.norm) });
    }
    scored.sort((a, b) => b.score - a.score || a.doc.order - b.doc.order);
    return scored.slice(0, limit).map(({ doc, score }) => ({ id: doc.id, content: doc.content, score, metadata: doc.metadata }));
  }

  async queryText(text: string, options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    const [vector] = await this.#embed([text], "queryText");
    return this.query(vector!, options);
  }

  async get(id: string, options: VectorWriteOptions = {}): Promise<VectorHit | undefined> {
    const doc = this.#collections.get(collectionName(options))?.get(id);
    return doc ? { id: doc.id, content: doc.content, score: 1, metadata: doc.metadata } : undefined;
  }

  async delete(ids: readonly string[], options: VectorWriteOptions = {}): Promise<number> {
    const bucket = this.#collections.get(collectionName(options));
    if (!bucket) return 0;
    let deleted = 0;
    for (const id of ids) if (bucket.delete(id)) deleted++;
    return deleted;
  }

  async count(options: VectorWriteOptions = {}): Promise<number> {
    return this.#collections.get(collectionName(options))?.size ?? 0;
  }

  async collections(): Promise<string[]> {
    return [...this.#collections.entries()].filter(([, bucket]) => bucket.size > 0).map(([name]) => name).sort();
  }

  async #prepare(documents: readonly VectorDocument[], collection: string): Promise<Stored[]> {
    const missing = documents.filter((d) => d.embedding === undefined);
    if (missing.length > 0 && !this.#embedder) {
      throw createError("INVALID_ARGUMENT", `document "${missing[0]!.id}" has no embedding and the store has no embedder`, {
        module: "vector-store",
        path: `documents.${missing[0]!.id}.embedding`,
        expected: "an embedding (Float32Array | number[]), or a store created with an embedder",
        given: undefined,
      });
    }
    const computed = missing.length > 0 ? await this.#embed(missing.map((d) => d.content), "add/upsert") : [];
    const byId = new Map(missing.map((d, i) => [d.id, computed[i]!]));
    return documents.map((d) => {
      const embedding = d.embedding === undefined ? byId.get(d.id)! : toVector(d.embedding, `embedding of "${d.id}"`);
      this.#checkDimension(collection, embedding, `embedding of "${d.id}"`);
      return { id: d.id, content: d.content, embedding, norm: normOf(embedding), metadata: Object.freeze({ ...(d.metadata ?? {}) }), order: this.#order++ };
    });
  }

  async #embed(texts: string[], what: string): Promise<Float32Array[]> {
    if (!this.#embedder) {
      throw createError("INVALID_ARGUMENT", `${what} needs an embedder and the store has none`, { module: "vector-store", expected: "InMemoryVectorStore({ embedder })" });
    }
    const vectors = await this.#embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw createError("INVALID_ARGUMENT", `embedder "${this.#embedder.name}" returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`, {
        module: "vector-store",
        expected: "one Float32Array per text",
        given: Array.isArray(vectors) ? vectors.length : vectors,
      });
    }
    return vectors.map((v, i) => toVector(v, `embedding ${i} of embedder "${this.#embedder!.name}"`));
  }

  #bucket(collection: string): Map<string, Stored> {
    let bucket = this.#collections.get(collection);
    if (!bucket) this.#collections.set(collection, (bucket = new Map()));
    return bucket;
  }

  #checkDimension(collection: string, vector: Float32Array, what: string): void {
    const bucket = this.#collections.get(collection);
    if (!bucket || bucket.size === 0) this.#dimensions.delete(collection);
    const expected = this.#dimensions.get(collection);
    if (expected === undefined) this.#dimensions.set(collection, vector.length);
    else if (vector.length !== expected) {
      throw createError("INVALID_ARGUMENT", `${what} has ${vector.length} dimensions, collection "${collection}" holds ${expected}`, {
        module: "vector-store",
        expected: `${expected} dimensions`,
        given: vector.length,
      });
    }
  }
}

/** Every key of the filter matches: a scalar by equality, `{ in: [...] }` by membership. */
export function matches(metadata: Readonly<Record<string, MetadataValue>>, filter: MetadataFilter): boolean {
  for (const [key, wanted] of Object.entries(filter)) {
    const value = Object.hasOwn(metadata, key) ? metadata[key]! : undefined;
    if (wanted !== null && typeof wanted === "object") {
      if (!wanted.in.some((w) => w === value || (w === null && value === undefined))) return false;
    } else if (!(value === wanted || (wanted === null && value === undefined))) return false;
  }
  return true;
}

function collectionName(options: VectorWriteOptions): string {
  const name = options.collection ?? "default";
  if (typeof name !== "string" || name.length === 0) {
    throw createError("INVALID_ARGUMENT", "a collection name must be a non-empty string", { module: "vector-store", path: "collection", expected: "a non-empty string", given: name });
  }
  return name;
}

export function checkDocument(d: VectorDocument, i: number): VectorDocument {
  if (typeof d?.id !== "string" || d.id.length === 0 || typeof d.content !== "string") {
    throw createError("INVALID_ARGUMENT", `document ${i} needs a non-empty string id and a string content`, {
      module: "vector-store",
      path: `documents[${i}]`,
      expected: "{ id: string, content: string, embedding?, metadata? }",
      given: d,
    });
  }
  return d;
}

export function toVector(value: Float32Array | readonly number[], what: string): Float32Array {
  const vector = value instanceof Float32Array ? value : Array.isArray(value) ? Float32Array.from(value) : undefined;
  if (!vector || vector.length === 0 || vector.some((x) => !Number.isFinite(x))) {
    throw createError("INVALID_ARGUMENT", `${what} is not a non-empty vector of finite numbers`, { module: "vector-store", expected: "Float32Array | number[]", given: value });
  }
  return vector;
}

function normOf(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

function cosine(a: Float32Array, na: number, b: Float32Array, nb: number): number {
  if (na === 0 || nb === 0) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot / (na * nb);
}
