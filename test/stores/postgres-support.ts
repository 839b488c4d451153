import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { bundleStoreFixture } from "./support.js";

/** The server the tests use (trust auth, database `test`); AMPLIFIER_PG_URL overrides it. */
export const PG_URL = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema name for one test file or case: `amp_test_<random>`. */
export function testSchemaName(): string {
  return `amp_test_${randomBytes(6).toString("hex")}`;
}

/** Drops schemas (and everything in them) with a short-lived client of its own. */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** For a test file: gives a fresh schema name (testSchemaName) each call; every one given is dropped after all its tests. */
export function schemasDroppedAfterAll(): () => string {
  const schemas: string[] = [];
  afterAll(() => dropSchemas(...schemas));
  return () => {
    const schema = testSchemaName();
    schemas.push(schema);
    return schema;
  };
}

/** Runs one query on a short-lived client (for checks that look under the store). */
export async function queryOnce<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Bundles test/stores/fixtures/postgres-writer.ts with esbuild into .cache/ inside the repo (so
 * `pg` resolves from node_modules at run time); returns the script's path.
 */
export function bundlePostgresWriter(): Promise<string> {
  return bundleStoreFixture("postgres-writer");
}
