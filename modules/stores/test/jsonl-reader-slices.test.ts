/**
 * The JSONL reader runs in servers' threads (the Inspector, `serve --sessions`): indexing a large
 * session and parsing it are cut into slices, with a turn of the event loop between them, so a
 * request beside a large read waits a slice, not the whole parse. Asserted on
 * structure — the reader's own count of turns given, and another task running in between — never
 * on milliseconds.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlSessionReader } from "../jsonl-session-reader.js";
import { timeSlice } from "../time-slice.js";

const RECORDS = 2_000;

async function sessionFile(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), "amplifier-reader-slices-"));
  const file = join(dir, "s.jsonl");
  const lines = Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i} ${"x".repeat(200)}`, metadata: { id: `m${i}`, timestamp: new Date(0).toISOString() } }));
  await writeFile(file, `${lines.join("\n")}\n`);
  return { dir, file };
}

describe("the JSONL reader gives the event loop a turn while it indexes and parses", () => {
  it("with a zero slice: turns while indexing and while parsing, other tasks run in between, and the messages are the same", async () => {
    const { dir, file } = await sessionFile();
    try {
      const sliced = new JsonlSessionReader("s", file, "test", 0);
      const whole = new JsonlSessionReader("s", file, "test", Number.POSITIVE_INFINITY);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 0);
      const beforeIndex = ticks;
      expect(await sliced.count()).toBe(RECORDS);
      const indexYields = sliced.yields;
      const messages = await sliced.read((length) => ({ start: 0, end: length }));
      clearInterval(ticker);
      // Every 32 records at least one turn: indexing and parsing each give about RECORDS / 32.
      expect(indexYields).toBeGreaterThanOrEqual(RECORDS / 32 - 1);
      expect(sliced.yields - indexYields).toBeGreaterThanOrEqual(RECORDS / 32 - 1);
      expect(ticks - beforeIndex).toBeGreaterThan(0);
      expect(messages.map((m) => m.metadata?.id)).toEqual((await whole.read((length) => ({ start: 0, end: length }))).map((m) => m.metadata?.id));
      expect(whole.yields).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("timeSlice looks at the clock every 32 calls only, and is due once its slice is spent", async () => {
    const never = timeSlice(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 1_000; i++) expect(never.due()).toBe(false);
    const always = timeSlice(0);
    const due = Array.from({ length: 64 }, () => always.due());
    expect(due.filter(Boolean)).toHaveLength(2);
    expect(due[31]).toBe(true);
    await always.yield();
    expect(always.yields).toBe(1);
  });
});
