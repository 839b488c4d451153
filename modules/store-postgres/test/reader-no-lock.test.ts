/**
 * A PostgreSQL store whose tables are already at the current version takes nothing exclusive to
 * read: the migration's advisory lock (held here by another connection, as a store migrating in
 * another process would) does not stand in the way of a reader — the Inspector, `sessions show`.
 * Only a store that has a migration to run takes that lock.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { dropSchemas, PG_URL, testSchemaName } from "../../../test/stores/postgres-support.js";

const schema = testSchemaName();
afterAll(() => dropSchemas(schema));

describe("PostgresStore: a reader of an up-to-date schema", () => {
  it("reads while another connection holds the migration lock, and creates nothing", async () => {
    const writer = new PostgresStore({ url: PG_URL, schema });
    await writer.appendMany("chat", [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]);
    await writer.close();

    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    const reader = new PostgresStore({ url: PG_URL, schema });
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-ts:${schema}.amplifier_messages`]);
      const read = reader.read("chat").then((messages) => messages.map((m) => m.content));
      // Generous: the read needs milliseconds; waiting for the lock, it would never end while it is held.
      const outcome = await Promise.race([read, new Promise((resolve) => setTimeout(() => resolve("still waiting for the migration lock"), 15_000))]);
      expect(outcome).toEqual(["hi", "hello"]);
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      await holder.end();
      await reader.close();
    }
  });
});
