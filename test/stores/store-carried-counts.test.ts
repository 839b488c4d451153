/**
 * Token counts carried from one process to the next through the session's store (issue 20):
 * context-persistent keeps them as the session's attachment "counts" (SessionAttachments), so a
 * session resumed in a NEW process from PostgreSQL or Redis — not only from JSONL — finds its
 * window's counts and neither tokenizes it again nor loads tiktoken. Each step is its own Node
 * process (test/stores/fixtures/persistent-resume.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWriter } from "./support.js";
import { bundleStoreFixture } from "./support.js";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

interface Result {
  ids: string[];
  tiktokenLoadedBefore: boolean;
  tiktokenLoaded: boolean;
  degraded: string[];
}

let script: string;
const schema = testSchemaName();
const keyPrefix = testKeyPrefix();
beforeAll(async () => {
  script = await bundleStoreFixture("persistent-resume");
});
afterAll(async () => {
  await dropSchemas(schema);
  await dropPrefixes(keyPrefix);
});

async function run(mode: "write" | "write-interrupted" | "resume", store: Record<string, unknown>, sessionId: string, count = 0): Promise<Result> {
  const child = startWriter(script, [mode, JSON.stringify(store), sessionId, String(count)]);
  const { code } = await child.exited;
  const line = child.lines.find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) throw new Error(`${mode} exited with ${code}: ${child.stderr()}`);
  return JSON.parse(line.slice("RESULT ".length)) as Result;
}

const STORES = {
  postgres: { type: "postgres", url: PG_URL, schema },
  redis: { type: "redis", url: REDIS_URL, keyPrefix },
} as const;

describe.each(Object.entries(STORES))("context-persistent on %s: the window's token counts survive the process", (kind, store) => {
  it("a new process resumes the session, builds the same window and loads no tokenizer; without the attachment it must tokenize", async () => {
    const sessionId = `carried-${kind}`;
    const written = await run("write", store, sessionId, 400);
    expect(written.tiktokenLoaded, "the writer counted its window").toBe(true);
    expect(written.degraded).toEqual([]);

    const resumed = await run("resume", store, sessionId);
    expect(resumed.ids).toEqual(written.ids);
    expect(resumed.tiktokenLoaded, "every count of the window was carried: no tokenizer loaded").toBe(false);
    expect(resumed.degraded).toEqual([]);

    // The control: the same resume without the carried counts tokenizes its window.
    if (kind === "postgres") await queryOnce(`DELETE FROM "${schema}".amplifier_messages_attachments WHERE session_id = $1 AND name = 'counts'`, [sessionId]);
    else await dropPrefixes(`${keyPrefix}d:${sessionId}`);
    const recounted = await run("resume", store, sessionId);
    expect(recounted.ids).toEqual(written.ids);
    expect(recounted.tiktokenLoaded).toBe(true);
  }, 60_000);

  it("the count of the synthetic result of an interrupted call right below the window's cut is carried too: no tokenizer loaded", async () => {
    const sessionId = `interrupted-${kind}`;
    const written = await run("write-interrupted", store, sessionId);
    expect(written.ids, "the interrupted turn is below the cut").toEqual(["p1", "a1"]);
    const resumed = await run("resume", store, sessionId);
    expect(resumed.ids).toEqual(written.ids);
    expect(resumed.tiktokenLoaded, "the cut's decision counted the synthetic result from a carried count").toBe(false);
  }, 60_000);

  it("an attachment that is not a counts record is context:storage_degraded, and the session goes on (counted again)", async () => {
    const sessionId = `bad-counts-${kind}`;
    const written = await run("write", store, sessionId, 20);
    if (kind === "postgres") await queryOnce(`UPDATE "${schema}".amplifier_messages_attachments SET body = '{ not json' WHERE session_id = $1 AND name = 'counts'`, [sessionId]);
    else await overwriteRedisAttachment(`${keyPrefix}d:${sessionId}`, "counts", "{ not json");
    const resumed = await run("resume", store, sessionId);
    expect(resumed.ids).toEqual(written.ids);
    expect(resumed.tiktokenLoaded).toBe(true);
    expect(resumed.degraded).toEqual([expect.stringContaining(`attachment "counts" of session "${sessionId}" in the ${kind} store) cannot be used`)]);
  }, 60_000);
});

async function overwriteRedisAttachment(key: string, name: string, text: string): Promise<void> {
  const { createClient } = await import("redis");
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    await client.hSet(key, name, text);
  } finally {
    await client.close();
  }
}
