import pg from "pg";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import { DEFAULT_PG_URL, redactUrl, withDefaultUser } from "@amplifier-ts/store-postgres";

export interface PgConnectionOptions {
  url?: string;
  schema?: string;
  tablePrefix?: string;
  poolSize?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;

/**
 * What the three PostgreSQL stores share: their own pool (one per store instance; the tests run
 * several against one database), the schema and table names, the migrations run once on the first
 * use under an advisory lock (so processes starting together do not race on CREATE TABLE), and
 * the mapping of driver failures to typed errors: a server that cannot be reached is
 * STORAGE_UNAVAILABLE naming it (password masked).
 */
export class PgConnection {
  readonly url: string;
  readonly schema: string;
  readonly prefix: string;
  readonly #pool: pg.Pool;
  readonly #module: string;
  readonly #migrations: (schema: string, prefix: string) => string[];
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(module: string, options: PgConnectionOptions, migrations: (schema: string, prefix: string) => string[]) {
    this.#module = module;
    const url: unknown = options.url ?? process.env.AMPLIFIER_PG_URL ?? DEFAULT_PG_URL;
    if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
      throw createError("INVALID_ARGUMENT", "a PostgreSQL store needs a postgres:// url", { module, path: "url", expected: "postgres://user@host:port/database", given: url });
    }
    this.url = withDefaultUser(url);
    this.schema = identifier(module, "schema", options.schema ?? "public");
    this.prefix = identifier(module, "tablePrefix", options.tablePrefix ?? "amplifier");
    const poolSize = options.poolSize ?? 10;
    if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
      throw createError("INVALID_ARGUMENT", "poolSize must be an integer from 1 to 1000", { module, path: "poolSize", expected: "an integer from 1 to 1000", given: poolSize });
    }
    this.#pool = new pg.Pool({ connectionString: this.url, max: poolSize, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 5_000 });
    this.#pool.on("error", () => undefined); // an idle connection that dies surfaces on the next query
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
    await this.#pool.end().catch(() => undefined);
  }

  /** One statement on any pooled connection. */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    await this.connect();
    try {
      return await this.#pool.query<R>(sql, params);
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
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#typed(error);
    }
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw this.#typed(error);
    } finally {
      client.release();
    }
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
