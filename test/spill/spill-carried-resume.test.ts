/**
 * A resumed session takes its spilled inputs' excerpts as the last process made them
 * (context-manager carried-spills.ts, the session's attachment "spills"): the first window after
 * a resume in a NEW process is byte-identical to the last window before it — although the latest
 * prompt is about something else, which an excerpt made again would follow — and neither excerpt
 * nor count loads the tokenizer (the copies' counts are carried with the history's). Without the
 * attachment the same resume excerpts again (another window, tiktoken loaded). Each step is its own
 * Node process (test/stores/fixtures/spilled-resume.ts).
 */
import { mkdtemp, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "../stores/postgres-support.js";
import { bundleStoreFixture, startWriter } from "../stores/support.js";

interface Result {
  window: string;
  tiktokenLoaded: boolean;
  spills: { handle: string }[];
  degraded: string[];
}

let script: string;
let dir: string;
const schema = testSchemaName();
beforeAll(async () => {
  script = await bundleStoreFixture("spilled-resume");
  dir = await mkdtemp(join(tmpdir(), "amplifier-spill-carried-"));
});
afterAll(async () => {
  await dropSchemas(schema);
  await rm(dir, { recursive: true, force: true });
});

async function run(mode: "write" | "resume", store: Record<string, unknown>, sessionId: string): Promise<Result> {
  const child = startWriter(script, [mode, JSON.stringify(store), sessionId]);
  const { code } = await child.exited;
  const line = child.lines.find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) throw new Error(`${mode} exited with ${code}: ${child.stderr()}`);
  return JSON.parse(line.slice("RESULT ".length)) as Result;
}

const STORES = {
  jsonl: () => ({ type: "jsonl", storagePath: dir }),
  postgres: () => ({ type: "postgres", url: PG_URL, schema }),
} as const;

async function dropSpillsAttachment(kind: keyof typeof STORES, sessionId: string): Promise<void> {
  if (kind === "jsonl") await unlink(join(dir, `${sessionId}.spills.json`));
  else await queryOnce(`DELETE FROM "${schema}".amplifier_messages_attachments WHERE session_id = $1 AND name = 'spills'`, [sessionId]);
}

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])("context-persistent on %s: spilled inputs resume as they were sent", (kind) => {
  it("the first window of a new process is the last one sent, byte for byte, with no tokenizer loaded; without the attachment it is excerpted again", async () => {
    const store = STORES[kind]();
    const sessionId = `spilled-${kind}`;
    const written = await run("write", store, sessionId);
    expect(written.spills).toHaveLength(1);
    expect(written.tiktokenLoaded, "the writer excerpted and counted").toBe(true);
    expect(written.degraded).toEqual([]);
    const handle = written.spills[0]!.handle;
    expect(written.window).toContain(handle);

    const resumed = await run("resume", store, sessionId);
    expect(resumed.window, "the excerpt made for the first prompt, not for the latest").toBe(written.window);
    expect(resumed.tiktokenLoaded, "nothing excerpted or counted again: no tokenizer loaded").toBe(false);
    // A JSONL session's blobs are files beside it; over PostgreSQL they are in memory, written (and announced) again.
    if (kind === "jsonl") expect(resumed.spills, "the blob is stored already").toEqual([]);
    expect(resumed.degraded).toEqual([]);

    // The control: without the carried excerpts the resume excerpts the log again, for the latest prompt.
    await dropSpillsAttachment(kind, sessionId);
    const excerptedAgain = await run("resume", store, sessionId);
    expect(excerptedAgain.tiktokenLoaded).toBe(true);
    expect(excerptedAgain.window).toContain(handle);
    expect(excerptedAgain.window).not.toBe(written.window);
  }, 60_000);
});
