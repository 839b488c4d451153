import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { describeVectorStoreContract } from "../../../testing/index.js";
import { PgVectorStore } from "@amplifier-ts/vector-store-postgres";

// The server of the store tests (AMPLIFIER_PG_URL overrides). pgvector is optional: where
// `CREATE EXTENSION vector` fails (Debian without postgresql-15-pgvector), the contract suite is
// skipped with the reason, and only the store's refusal is checked.
const PG_URL = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schemas: string[] = [];

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch (error) {
    return `no PostgreSQL server at ${PG_URL} (${(error as Error).message})`;
  }
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    return undefined;
  } catch (error) {
    return `CREATE EXTENSION vector failed: ${(error as Error).message} — install pgvector (Debian: postgresql-15-pgvector) to run the pgvector contract suite`;
  } finally {
    await client.end();
  }
}

const unavailable = await probe();
const fresh = () => {
  const schema = `amp_vec_${randomBytes(6).toString("hex")}`;
  schemas.push(schema);
  return schema;
};

afterAll(async () => {
  if (unavailable?.startsWith("no PostgreSQL")) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

if (unavailable === undefined) {
  describeVectorStoreContract("pgvector", async ({ embedder }) => ({ store: new PgVectorStore({ url: PG_URL, schema: fresh(), ...(embedder ? { embedder } : {}) }) }));
} else {
  describe("VectorStore contract: pgvector", () => {
    it.skip(`skipped: ${unavailable}`, () => {});
  });
}

describe.skipIf(unavailable === undefined || unavailable.startsWith("no PostgreSQL"))("PgVectorStore without the extension", () => {
  it("fails with STORAGE_UNAVAILABLE naming pgvector, not with a raw driver error", async () => {
    const store = new PgVectorStore({ url: PG_URL, schema: fresh() });
    try {
      await expect(store.add([{ id: "a", content: "x", embedding: [1, 0] }])).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE", message: expect.stringContaining("pgvector") });
    } finally {
      await store.close();
    }
  });
});

describe("PgVectorStore options", () => {
  it("rejects a schema or table that is not a plain identifier", () => {
    expect(() => new PgVectorStore({ url: PG_URL, schema: 'x"; DROP' })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("PgVectorStore lifecycle", () => {
  it("refuses use after close() with STORE_CLOSED, even when it never connected; closing again is harmless", async () => {
    const store = new PgVectorStore({ url: PG_URL, schema: fresh() });
    await store.close();
    await expect(store.count()).rejects.toMatchObject({ code: "STORE_CLOSED" });
    await expect(store.add([{ id: "a", content: "x", embedding: [1, 0] }])).rejects.toMatchObject({ code: "STORE_CLOSED" });
    await store.close();
  });
});
