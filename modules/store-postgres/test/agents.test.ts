import { describe, expect, it } from "vitest";
import { PostgresStore } from "@amplifier-ts/store-postgres";
import { acquirePool } from "@amplifier-ts/pg-kit";
import { migrate, SCHEMA_VERSION, tableNames } from "../postgres-migrations.js";
import { PG_URL, queryOnce, schemasDroppedAfterAll } from "../../../test/stores/postgres-support.js";

/**
 * Agent scoping in PostgreSQL (contracts/HISTORY-STORES.md): migration 2 adds agent_id to both
 * tables and leads the keys with it; rows of version 1 become the default agent's.
 */
const fresh = schemasDroppedAfterAll();

const json = (text: string, runId?: string) => JSON.stringify({ role: "user", content: text, metadata: { id: text, ...(runId ? { runId } : {}) } });

/** Tables at version 1 holding `rows` per session, written with version 1's own statements. */
async function versionOneTables(schema: string, sessions: Record<string, { text: string; runId?: string }[]>): Promise<void> {
  const names = tableNames(schema, "amplifier_messages");
  const lease = await acquirePool(PG_URL);
  try {
    expect(await migrate(lease.pool, names, 1)).toEqual([1]);
    for (const [sessionId, rows] of Object.entries(sessions)) {
      const texts = rows.map((r) => json(r.text, r.runId));
      // Version 1's append: the sessions row upserted ON CONFLICT (session_id), then the rows.
      await lease.pool.query(
        `WITH s AS (
           INSERT INTO ${names.sessions} AS s (session_id, count, bytes, updated_at) VALUES ($1, $2, $3, now())
           ON CONFLICT (session_id) DO UPDATE SET count = s.count + EXCLUDED.count, bytes = s.bytes + EXCLUDED.bytes, updated_at = now()
           RETURNING count - $2::bigint AS first)
         INSERT INTO ${names.messages} (session_id, seq, message, run_id, bytes)
         SELECT $1, s.first + m.ord - 1, m.message, m.run_id, m.bytes
         FROM s, ROWS FROM (jsonb_array_elements($4::jsonb), unnest($5::text[]), unnest($6::int[])) WITH ORDINALITY AS m(message, run_id, bytes, ord)`,
        [sessionId, rows.length, texts.reduce((n, t) => n + Buffer.byteLength(t), 0), `[${texts.join(",")}]`, rows.map((r) => r.runId ?? null), texts.map((t) => Buffer.byteLength(t))],
      );
    }
  } finally {
    await lease.release();
  }
}

describe("PostgresStore agents", () => {
  it("agent_id is a column of both tables and leads both primary keys and the run/write indexes", async () => {
    const schema = fresh();
    const store = new PostgresStore({ url: PG_URL, schema });
    await store.append("s1", { role: "user", content: "d" });
    await store.append("s1", { role: "user", content: "a" }, { agentId: "alpha" });
    await store.close();
    const rows = await queryOnce<{ agent_id: string; content: string; seq: string }>(`SELECT agent_id, message->>'content' AS content, seq FROM "${schema}".amplifier_messages ORDER BY agent_id`);
    expect(rows).toEqual([{ agent_id: "alpha", content: "a", seq: "0" }, { agent_id: "default", content: "d", seq: "0" }]);
    const sessions = await queryOnce<{ agent_id: string; session_id: string; count: string }>(`SELECT agent_id, session_id, count FROM "${schema}".amplifier_messages_sessions ORDER BY agent_id`);
    expect(sessions).toEqual([{ agent_id: "alpha", session_id: "s1", count: "1" }, { agent_id: "default", session_id: "s1", count: "1" }]);
    const indexes = await queryOnce<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`, [schema]);
    const def = (name: string) => indexes.find((i) => i.indexname === name)?.indexdef ?? "";
    expect(def("amplifier_messages_pkey")).toMatch(/\(agent_id, session_id, seq\)/);
    expect(def("amplifier_messages_sessions_pkey")).toMatch(/\(agent_id, session_id\)/);
    expect(def("amplifier_messages_run_idx")).toMatch(/\(agent_id, session_id, run_id\)/);
    expect(def("amplifier_messages_write_idx")).toMatch(/\(agent_id, session_id, write_id\)/);
  });

  it("migration: rows written by version 1 become the default agent's, then every method works on them", async () => {
    const schema = fresh();
    await versionOneTables(schema, { old: [{ text: "one" }, { text: "two", runId: "r1" }, { text: "three" }], other: [{ text: "x" }] });
    const store = new PostgresStore({ url: PG_URL, schema });
    try {
      expect((await store.open("old")).messages.map((m) => m.content)).toEqual(["one", "two", "three"]);
      expect((await store.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["old", 3], ["other", 1]]);
      expect(await store.read("old", { agentId: "alpha" })).toEqual([]);
      expect(await store.listSessions({ agentId: "alpha" })).toEqual([]);
      // The same session id for another agent starts its own history at seq 0.
      await store.append("old", { role: "user", content: "alpha's" }, { agentId: "alpha" });
      await store.append("old", { role: "user", content: "four" });
      await store.clearRun("old", "r1");
      expect((await store.read("old")).map((m) => m.content)).toEqual(["one", "three", "four"]);
      expect((await store.read("old", { agentId: "alpha" })).map((m) => m.content)).toEqual(["alpha's"]);
    } finally {
      await store.close();
    }
    const versions = await queryOnce<{ version: number }>(`SELECT version FROM "${schema}".amplifier_messages_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    const agents = await queryOnce<{ agent_id: string; n: string }>(`SELECT agent_id, count(*) AS n FROM "${schema}".amplifier_messages GROUP BY agent_id ORDER BY agent_id`);
    expect(agents).toEqual([{ agent_id: "alpha", n: "1" }, { agent_id: "default", n: "4" }]);
  });

  it("migration 2 runs once when several stores open a version-1 schema at the same moment", async () => {
    const schema = fresh();
    await versionOneTables(schema, { s: [{ text: "kept" }] });
    const stores = Array.from({ length: 4 }, () => new PostgresStore({ url: PG_URL, schema }));
    try {
      const counts = await Promise.all(stores.map((s, i) => s.append("s", { role: "user", content: `m${i}` }, { agentId: `agent-${i}` }).then(() => s.count("s"))));
      expect(counts).toEqual([1, 1, 1, 1]);
      expect(await stores[0]!.count("s", { agentId: "agent-3" })).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    const versions = await queryOnce<{ version: number }>(`SELECT version FROM "${schema}".amplifier_messages_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });
});
