/**
 * Moving sessions between stores with the CLI against the real PostgreSQL: JSONL → PostgreSQL →
 * JSONL, idempotent, verified by count and hash (PostgreSQL jsonb reorders keys; the hash does not care).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { runCliCollecting } from "../support/run-cli-collecting.js";
import { contentHash } from "../../src/cli/commands/sessions.js";
import { JsonlStore } from "../../modules/stores/jsonl-store.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

let dir: string;
const schema = testSchemaName();
const pgStore = `${PG_URL}?schema=${schema}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-sessions-pg-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await dropSchemas(schema);
});

const cli = (...argv: string[]) => runCliCollecting(dir, argv);

const session = (n: number, tag: string): Message[] =>
  Array.from({ length: n }, (_, i): Message =>
    i % 3 === 1
      ? { role: "assistant", content: null, tool_calls: [{ id: `${tag}c${i}`, type: "function", function: { name: "grep", arguments: `{"q":"${tag} ${i}"}` } }], metadata: { id: `${tag}${i}`, timestamp: "2026-11-22T10:00:00.000Z", runId: "r1" } }
      : i % 3 === 2
        ? { role: "tool", tool_call_id: `${tag}c${i - 1}`, content: `match ${i} — ✓ 日本`, metadata: { id: `${tag}${i}` } }
        : { role: "user", content: [{ type: "text", text: `question ${i}` }], metadata: { id: `${tag}${i}` } },
  );

describe("sessions: JSONL ⇄ PostgreSQL", () => {
  it("export --all --to postgres, back to a new JSONL folder, each idempotent and hash-verified", async () => {
    const source = new JsonlStore({ storagePath: join(dir, "a"), fsync: "never" });
    await source.appendMany("alpha", session(30, "a"));
    await source.appendMany("beta", session(7, "b"));
    await source.close();

    const toPg = await cli("sessions", "export", "--all", "--store", "a", "--to", pgStore);
    expect(toPg.stderr).toBe("");
    expect(toPg.code).toBe(0);
    expect(toPg.stdout).toMatch(/alpha\s+30\s+copied\s+([0-9a-f]{16})/);
    const again = await cli("sessions", "export", "--all", "--store", "a", "--to", pgStore);
    expect(again.stdout).toMatch(/alpha\s+30\s+unchanged/);
    expect(again.stdout).toMatch(/beta\s+7\s+unchanged/);

    const listed = await cli("sessions", "list", "--store", pgStore);
    expect(listed.stdout).toMatch(/alpha\s+30\s/);
    expect(listed.stdout).toMatch(/beta\s+7\s/);

    const back = await cli("sessions", "export", "--all", "--store", pgStore, "--to", "b");
    expect(back.code).toBe(0);
    const copy = new JsonlStore({ storagePath: join(dir, "b"), fsync: "never" });
    try {
      expect(contentHash(await copy.read("alpha"))).toBe(contentHash(session(30, "a")));
      expect(await copy.read("beta")).toEqual(session(7, "b"));
    } finally {
      await copy.close();
    }
  });
});
