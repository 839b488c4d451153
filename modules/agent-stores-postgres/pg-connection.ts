import type pg from "pg";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { closePool, connectionUrl, createPool, redactUrl, withTransaction } from "@amplifier-ts/pg-kit";

export interface PgConnectionOptions {
  url?: string;
  schema?: string;
  tablePrefix?: string;
  poolSize?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;

/**
 * What the three PostgreSQL stores share: their own pool (one per store instance, made on first
 * use; the tests run several against one database), the schema and table names, the migrations
 * run once on the first use under an advisory lock (so processes starting together do not race on
 * CREATE TABLE), and the mapping of driver failures to typed errors: a server that cannot be reached is
 * STORAGE_UNAVAILABLE naming it (password masked).
 */
export class PgConnection {
  readonly url: string;
  readonly schema: string;
  readonly prefix: string;
  readonly #poolSize: number;
  #pool: Promise<pg.Pool> | undefined;
  readonly #module: string;
  readonly #migrations: (schema: string, prefix: string) => string[];
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(module: string, options: PgConnectionOptions, migrations: (schema: string, prefix: string) => string[]) {
    this.#module = module;
    this.url = connectionUrl(options.url, { module, path: "url", message: "a PostgreSQL store needs a postgres:// url" });
    this.schema = identifier(module, "schema", options.schema ?? "public");
    this.prefix = identifier(module, "tablePrefix", options.tablePrefix ?? "amplifier");
    const poolSize = options.poolSize ?? 10;
    if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
      throw createError("INVALID_ARGUMENT", "poolSize must be an integer from 1 to 1000", { module, path: "poolSize", expected: "an integer from 1 to 1000", given: poolSize });
    }
    this.#poolSize = poolSize;
    this.#migrations = migrations;
  }

  /** `"schema"."<prefix>_<name>"`. */
  table(name: string): string {
    return `"${this.schema}"."${this.prefix}_${name}"`;
  }

  async connect(): Promise<void> {
    this.#open();
    this.#ready ??= this.#migrate().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
  }

  async disconnect(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await closePool(await this.#pool?.catch(() => undefined));
  }

  /** One statement on any pooled connection. */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    await this.connect();
    try {
      return await (await this.#connection()).query<R>(sql, params);
    } catch (error) {
      throw this.#typed(error);
    }
  }

  /** `fn` inside BEGIN … COMMIT on one connection (ROLLBACK when it throws). */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>, isolation = "READ COMMITTED"): Promise<T> {
    await this.connect();
    return this.#inTransaction(`BEGIN ISOLATION LEVEL ${isolation}`, fn);
  }

  /** The schema and tables, once per PgConnection (connect() memoizes it), under an advisory lock: several processes may start at once. */
  async #migrate(): Promise<void> {
    await this.#inTransaction("BEGIN", async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-agent-stores:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      for (const statement of this.#migrations(this.schema, this.prefix)) await client.query(statement);
    });
  }

  /** `fn` between `begin` and COMMIT on one pooled connection; ROLLBACK and a typed error when anything throws. No connect(): #migrate runs inside it. */
  async #inTransaction<T>(begin: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await withTransaction(await this.#connection(), fn, { begin });
    } catch (error) {
      throw this.#typed(error);
    }
  }

  /** The pool, made on first use (pg is loaded then); none after disconnect(). */
  #connection(): Promise<pg.Pool> {
    this.#open();
    return (this.#pool ??= createPool(this.url, { max: this.#poolSize }));
  }

  #typed(error: unknown): Error {
    if (isAmplifierError(error)) return error;
    const code = (error as { code?: unknown }).code;
    // SQLSTATE class 08 (connection), 57P (shutdown), 53 (resources) and socket errors: the server is not usable.
    const unavailable = typeof code === "string" && (/^(08|57P|53)/.test(code) || /^E[A-Z]+$/.test(code));
    return createError(unavailable ? "STORAGE_UNAVAILABLE" : "STORAGE_WRITE_FAILED", `PostgreSQL at ${redactUrl(this.url)}: ${(error as Error)?.message ?? String(error)}`, {
      module: this.#module,
      cause: error,
    });
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the store has been disconnected", { module: this.#module });
  }
}

function identifier(module: string, path: string, value: unknown): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value)) {
    throw createError("INVALID_ARGUMENT", `${path} must be a plain lowercase identifier`, { module, path, expected: "[a-z_][a-z0-9_]{0,40}", given: value });
  }
  return value;
}
