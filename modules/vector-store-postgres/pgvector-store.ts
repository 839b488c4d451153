/**
 * PgVectorStore: the VectorStore contract (contracts/search.ts) on PostgreSQL with the pgvector
 * extension (Debian: postgresql-15-pgvector). One table holds every collection:
 *
 *   "<schema>"."<table>" (collection text, id text, content text, embedding vector,
 *                         metadata jsonb, ord bigserial, PRIMARY KEY (collection, id))
 *
 * created on first use with `CREATE EXTENSION IF NOT EXISTS vector` — where the extension is not
 * installed that fails with STORAGE_UNAVAILABLE naming the package. Query = `ORDER BY embedding
 * <=> $1` (cosine distance; score = 1 − distance), ties by insertion order; no ANN index (exact,
 * like the in-memory store). Metadata filters compare jsonb values, so 1 and "1" stay different,
 * as in memory.
 */
import type pg from "pg";
import type { Embedder, MetadataFilter, VectorDocument, VectorHit, VectorQueryOptions, VectorStore, VectorWriteOptions } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { checkDocument, toVector } from "@amplifier-ts/search";
import { closePool, createPool, withTransaction } from "@amplifier-ts/pg-kit";

export interface PgVectorStoreOptions {
  url: string;
  /** Default "public". */
  schema?: string;
  /** Default "amplifier_vectors". */
  table?: string;
  embedder?: Embedder;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export class PgVectorStore implements VectorStore {
  readonly kind = "pgvector";
  readonly #url: string;
  #pool: Promise<pg.Pool> | undefined;
  readonly #table: string;
  readonly #embedder: Embedder | undefined;
  #ready: Promise<pg.Pool> | undefined;
  #closed = false;

  constructor(options: PgVectorStoreOptions) {
    const schema = options.schema ?? "public";
    const table = options.table ?? "amplifier_vectors";
    for (const [path, name] of [["schema", schema], ["table", table]] as const) {
      if (!IDENTIFIER.test(name)) {
        throw createError("INVALID_ARGUMENT", `${path} "${name}" is not a plain lowercase identifier`, { module: "pgvector", path, expected: "[a-z_][a-z0-9_]{0,62}", given: name });
      }
    }
    this.#table = `"${schema}"."${table}"`;
    this.#url = options.url;
    this.#embedder = options.embedder;
    this.#schema = schema;
  }

  readonly #schema: string;

  async add(documents: readonly VectorDocument[], options: VectorWriteOptions = {}): Promise<string[]> {
    return this.#write(documents, options, "DO NOTHING");
  }

  async upsert(documents: readonly VectorDocument[], options: VectorWriteOptions = {}): Promise<void> {
    await this.#write(documents, options, "DO UPDATE SET content = EXCLUDED.content, embedding = EXCLUDED.embedding, metadata = EXCLUDED.metadata");
  }

  async query(embedding: Float32Array | readonly number[], options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    const limit = options.limit ?? 5;
    if (!Number.isInteger(limit) || limit < 0) {
      throw createError("INVALID_ARGUMENT", "query limit must be a non-negative integer", { module: "pgvector", path: "limit", expected: "an integer ≥ 0", given: limit });
    }
    const vector = toVector(embedding, "query embedding");
    const collection = collectionName(options);
    if (limit === 0) return [];
    const pool = await this.#ensure();
    const dims = await this.#dimensions(pool, collection);
    if (dims === undefined) return [];
    if (dims !== vector.length) throw dimensionError(collection, dims, vector.length, "query embedding");
    const params: unknown[] = [literal(vector), collection, limit];
    const where = filterSql(options.filter, params);
    const { rows } = await pool.query<{ id: string; content: string; metadata: Record<string, never>; score: number }>(
      `SELECT id, content, metadata, 1 - (embedding <=> $1::vector) AS score FROM ${this.#table}
        WHERE collection = $2${where} ORDER BY embedding <=> $1::vector, ord LIMIT $3`,
      params,
    );
    return rows.map((r) => ({ id: r.id, content: r.content, metadata: r.metadata, score: Number(r.score) }));
  }

  async queryText(text: string, options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    const [vector] = await this.#embed([text], "queryText");
    return this.query(vector!, options);
  }

  async get(id: string, options: VectorWriteOptions = {}): Promise<VectorHit | undefined> {
    const { rows } = await (await this.#ensure()).query<{ id: string; content: string; metadata: Record<string, never> }>(`SELECT id, content, metadata FROM ${this.#table} WHERE collection = $1 AND id = $2`, [collectionName(options), id]);
    return rows[0] ? { ...rows[0], score: 1 } : undefined;
  }

  async delete(ids: readonly string[], options: VectorWriteOptions = {}): Promise<number> {
    const result = await (await this.#ensure()).query(`DELETE FROM ${this.#table} WHERE collection = $1 AND id = ANY($2::text[])`, [collectionName(options), [...ids]]);
    return result.rowCount ?? 0;
  }

  async count(options: VectorWriteOptions = {}): Promise<number> {
    const { rows } = await (await this.#ensure()).query<{ n: string }>(`SELECT count(*) AS n FROM ${this.#table} WHERE collection = $1`, [collectionName(options)]);
    return Number(rows[0]!.n);
  }

  async collections(): Promise<string[]> {
    const { rows } = await (await this.#ensure()).query<{ collection: string }>(`SELECT DISTINCT collection FROM ${this.#table} ORDER BY collection`);
    return rows.map((r) => r.collection);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await closePool(await this.#pool?.catch(() => undefined));
  }

  async #write(documents: readonly VectorDocument[], options: VectorWriteOptions, onConflict: string): Promise<string[]> {
    const collection = collectionName(options);
    documents.forEach(checkDocument);
    const missing = documents.filter((d) => d.embedding === undefined);
    if (missing.length > 0 && !this.#embedder) {
      throw createError("INVALID_ARGUMENT", `document "${missing[0]!.id}" has no embedding and the store has no embedder`, {
        module: "pgvector",
        path: `documents.${missing[0]!.id}.embedding`,
        expected: "an embedding (Float32Array | number[]), or a store created with an embedder",
        given: undefined,
      });
    }
    const computed = missing.length ? await this.#embed(missing.map((d) => d.content), "add/upsert") : [];
    const byId = new Map(missing.map((d, i) => [d.id, computed[i]!]));
    const vectors = documents.map((d) => (d.embedding === undefined ? byId.get(d.id)! : toVector(d.embedding, `embedding of "${d.id}"`)));
    return withTransaction(await this.#ensure(), async (client) => {
      // One writer per collection at a time, so the dimension check and the inserts agree.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`${this.#table}:${collection}`]);
      let dims = await this.#dimensions(client, collection);
      const inserted: string[] = [];
      for (let i = 0; i < documents.length; i++) {
        const d = documents[i]!;
        const v = vectors[i]!;
        dims ??= v.length;
        if (v.length !== dims) throw dimensionError(collection, dims, v.length, `embedding of "${d.id}"`);
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO ${this.#table} (collection, id, content, embedding, metadata) VALUES ($1, $2, $3, $4::vector, $5::jsonb)
            ON CONFLICT (collection, id) ${onConflict} RETURNING id`,
          [collection, d.id, d.content, literal(v), JSON.stringify(d.metadata ?? {})],
        );
        if (rows.length && onConflict === "DO NOTHING") inserted.push(d.id);
      }
      return inserted;
    });
  }

  async #dimensions(db: pg.Pool | pg.PoolClient, collection: string): Promise<number | undefined> {
    const { rows } = await db.query<{ dims: number }>(`SELECT vector_dims(embedding) AS dims FROM ${this.#table} WHERE collection = $1 LIMIT 1`, [collection]);
    return rows[0]?.dims;
  }

  async #embed(texts: string[], what: string): Promise<Float32Array[]> {
    if (!this.#embedder) throw createError("INVALID_ARGUMENT", `${what} needs an embedder and the store has none`, { module: "pgvector", expected: "PgVectorStore({ embedder })" });
    const vectors = await this.#embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw createError("INVALID_ARGUMENT", `embedder "${this.#embedder.name}" returned a wrong number of vectors`, { module: "pgvector", expected: `${texts.length} vectors`, given: Array.isArray(vectors) ? vectors.length : vectors });
    }
    return vectors.map((v, i) => toVector(v, `embedding ${i}`));
  }

  /** The pool once the extension, schema and table exist (made on first use; a failure is forgotten, so a later call tries again). */
  #ensure(): Promise<pg.Pool> {
    if (this.#closed) return Promise.reject(createError("STORE_CLOSED", undefined, { module: "pgvector" }));
    this.#ready ??= (async () => {
      const pool = await (this.#pool ??= createPool(this.#url, { max: 4 }));
      try {
        await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
      } catch (cause) {
        throw createError("STORAGE_UNAVAILABLE", "the pgvector extension is not available (CREATE EXTENSION vector failed)", {
          module: "pgvector",
          expected: "pgvector installed on the server (Debian: apt install postgresql-15-pgvector)",
          cause,
        });
      }
      await pool.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await pool.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
        collection text NOT NULL, id text NOT NULL, content text NOT NULL, embedding vector NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}', ord bigserial, PRIMARY KEY (collection, id))`);
      return pool;
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }
}

/** pgvector's text form: [1,2,3]. */
function literal(v: Float32Array): string {
  return `[${Array.from(v).join(",")}]`;
}

function filterSql(filter: MetadataFilter | undefined, params: unknown[]): string {
  if (!filter) return "";
  let sql = "";
  for (const [key, wanted] of Object.entries(filter)) {
    const values = wanted !== null && typeof wanted === "object" ? wanted.in : [wanted];
    const checks: string[] = [];
    params.push(key);
    const k = `$${params.length}`;
    for (const value of values) {
      if (value === null) checks.push(`(NOT metadata ? ${k} OR metadata -> ${k} = 'null'::jsonb)`);
      else {
        params.push(JSON.stringify(value));
        checks.push(`metadata -> ${k} = $${params.length}::jsonb`);
      }
    }
    sql += checks.length ? ` AND (${checks.join(" OR ")})` : " AND false";
  }
  return sql;
}

function collectionName(options: VectorWriteOptions): string {
  const name = options.collection ?? "default";
  if (typeof name !== "string" || name.length === 0) {
    throw createError("INVALID_ARGUMENT", "a collection name must be a non-empty string", { module: "pgvector", path: "collection", expected: "a non-empty string", given: name });
  }
  return name;
}

function dimensionError(collection: string, expected: number, given: number, what: string) {
  return createError("INVALID_ARGUMENT", `${what} has ${given} dimensions, collection "${collection}" holds ${expected}`, { module: "pgvector", expected: `${expected} dimensions`, given });
}
