import type pg from "pg";
import type { MemoryTreeFile, MemoryTreeStore, MemoryTreeTransaction } from "@amplifier-ts/contracts";
import type { PostgresMemoryTreeOptions } from "./agent-store-options.js";
import { PgStore } from "./pg-store.js";

const MODULE = "agent-stores-postgres/memory-tree";

/**
 * The memory tool's trees in PostgreSQL (contracts/stores/memory-tree.ts): one row per file of
 * `<prefix>_memory_files` (tree, path, text, size in UTF-8 bytes, version, updated_at).
 *
 * transact(tree, fn) is one READ COMMITTED transaction that first takes
 * `pg_advisory_xact_lock` on the tree: every change of a tree — from any process or machine on
 * the database — runs alone, so a read-modify-write never loses an edit and the tool's limits
 * (files, bytes) are checked against what commits. A failure in `fn` rolls back all of it. Each
 * write bumps the row's `version`, so an outside reader can tell two states apart.
 * Reads outside transact take no lock and see committed rows only.
 */
export class PostgresMemoryTree extends PgStore implements MemoryTreeStore {
  constructor(options: PostgresMemoryTreeOptions = {}) {
    super(MODULE, options, (schema, prefix) => [
      `CREATE TABLE IF NOT EXISTS "${schema}"."${prefix}_memory_files" (tree text NOT NULL, path text NOT NULL, text text NOT NULL, size integer NOT NULL, version bigint NOT NULL DEFAULT 1, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (tree, path))`,
    ]);
  }

  async read(tree: string, path: string): Promise<string | undefined> {
    return readWith((sql, params) => this.db.query(sql, params), this.#files(), tree, path);
  }

  async list(tree: string, dir: string): Promise<MemoryTreeFile[]> {
    return listWith((sql, params) => this.db.query(sql, params), this.#files(), tree, dir);
  }

  async transact<T>(tree: string, fn: (tx: MemoryTreeTransaction) => Promise<T>): Promise<T> {
    const files = this.#files();
    // What fn throws itself (a refusal, a typed error) passes through as it is, after the rollback;
    // only the database's own failures become the connection's typed errors.
    const fromDatabase = new WeakSet<object>();
    let thrownByFn: { error: unknown } | undefined;
    try {
      return await this.db.transaction(async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-memory-tree:${files}:${tree}`]);
        const run: Query = (sql, params) =>
          client.query(sql, params).catch((error: unknown) => {
            if (typeof error === "object" && error !== null) fromDatabase.add(error);
            throw error;
          });
        const tx: MemoryTreeTransaction = {
          read: (path) => readWith(run, files, tree, path),
          list: (dir) => listWith(run, files, tree, dir),
          write: async (path, text) => {
            await run(
              `INSERT INTO ${files} (tree, path, text, size) VALUES ($1, $2, $3, $4)
             ON CONFLICT (tree, path) DO UPDATE SET text = EXCLUDED.text, size = EXCLUDED.size, version = ${files}.version + 1, updated_at = now()`,
              [tree, path, text, Buffer.byteLength(text, "utf8")],
            );
          },
          remove: async (path) => {
            await run(`DELETE FROM ${files} WHERE tree = $1 AND (path = $2 OR starts_with(path, $2 || '/'))`, [tree, path]);
          },
          move: async (from, to) => {
            // A file keeps its row; a directory's files move with it: the new path is `to` + what followed `from`.
            await run(
              `UPDATE ${files} SET path = $3 || substr(path, length($2) + 1), version = version + 1, updated_at = now()
             WHERE tree = $1 AND (path = $2 OR starts_with(path, $2 || '/'))`,
              [tree, from, to],
            );
          },
        };
        try {
          return await fn(tx);
        } catch (error) {
          if (typeof error !== "object" || error === null || !fromDatabase.has(error)) thrownByFn = { error };
          throw error;
        }
      });
    } catch (error) {
      if (thrownByFn !== undefined) throw thrownByFn.error;
      throw error;
    }
  }

  #files(): string {
    return this.db.table("memory_files");
  }
}

type Query = (sql: string, params: unknown[]) => Promise<pg.QueryResult>;

async function readWith(run: Query, files: string, tree: string, path: string): Promise<string | undefined> {
  const found = await run(`SELECT text FROM ${files} WHERE tree = $1 AND path = $2`, [tree, path]);
  const row = found.rows[0] as { text: string } | undefined;
  return row?.text;
}

async function listWith(run: Query, files: string, tree: string, dir: string): Promise<MemoryTreeFile[]> {
  // COLLATE "C": code unit order for ASCII, the order every backend lists in.
  const found =
    dir === ""
      ? await run(`SELECT path, size FROM ${files} WHERE tree = $1 ORDER BY path COLLATE "C"`, [tree])
      : await run(`SELECT path, size FROM ${files} WHERE tree = $1 AND starts_with(path, $2 || '/') ORDER BY path COLLATE "C"`, [tree, dir]);
  return (found.rows as { path: string; size: number }[]).map((row) => ({
    path: row.path,
    size: Number(row.size),
  }));
}
