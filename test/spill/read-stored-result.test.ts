/** The read_stored_result tool (modules/read-stored-result): paging, search, bad calls, mounting. */
import { describe, expect, it } from "vitest";
import { createError } from "../../contracts/errors.js";
import type { SpilledResults } from "../../contracts/index.js";
import { createSession } from "../../src/session/index.js";
import { createReadStoredResultTool, readStoredResult, readStoredResultConfigSchema, TOOL_NAME } from "../../modules/read-stored-result/index.js";
import { spillErrors } from "../../modules/context-manager/spilled-history.js";
import { bigLog, NEEDLE, toolRound } from "./spill-fixtures.js";

const HANDLE = "spill-0123456789abcdef01234567";
const options = readStoredResultConfigSchema.parse({});

function readerOf(texts: Record<string, string>): SpilledResults {
  return {
    async read(handle) {
      if (!/^spill-[0-9a-f]{24}$/.test(handle)) throw createError("INVALID_ARGUMENT", "not a handle", { path: "handle", expected: "a spill handle", given: handle });
      const text = texts[handle];
      if (text === undefined) throw spillErrors.create("UNKNOWN_HANDLE", `no spilled result is stored under ${JSON.stringify(handle)}`, { path: "handle", given: handle });
      return text;
    },
  };
}

describe("read_stored_result: pages", () => {
  const text = bigLog(100_000);
  const reader = readerOf({ [HANDLE]: text });

  it("the first page by default: defaultLength characters and where the next one starts", async () => {
    const answer = await readStoredResult(reader, { handle: HANDLE }, options);
    const [head, ...body] = answer.split("\n");
    expect(head).toBe(`[${HANDLE}: characters 0-8000 of ${text.length}; next page: {"handle":"${HANDLE}","offset":8000}]`);
    expect(body.join("\n")).toBe(text.slice(0, 8_000));
  });

  it("offset and length give exactly those characters; the last page says it is the end", async () => {
    const answer = await readStoredResult(reader, { handle: HANDLE, offset: 50_000, length: 1_234 }, options);
    expect(answer.slice(answer.indexOf("\n") + 1)).toBe(text.slice(50_000, 51_234));
    const last = await readStoredResult(reader, { handle: HANDLE, offset: text.length - 10 }, options);
    expect(last).toContain("this is the end");
    expect(last.endsWith(text.slice(-10))).toBe(true);
  });

  it("pages never split a surrogate pair", async () => {
    const emoji = "😀".repeat(100);
    const answer = await readStoredResult(readerOf({ [HANDLE]: emoji }), { handle: HANDLE, offset: 0, length: 7 }, options);
    expect(answer.slice(answer.indexOf("\n") + 1)).toBe("😀".repeat(3));
  });
});

describe("read_stored_result: search", () => {
  const text = bigLog(300_000);
  const reader = readerOf({ [HANDLE]: text });

  it("a plain text pattern: the matching line with its line number and offset", async () => {
    const answer = await readStoredResult(reader, { handle: HANDLE, pattern: "ord-77123" }, options);
    const offset = text.indexOf(NEEDLE);
    const line = text.slice(0, offset).split("\n").length;
    expect(answer.split("\n")).toEqual([`[${HANDLE}: 1 line matching "ord-77123" from offset 0 (of ${text.length} characters); no more after these]`, `line ${line} (offset ${offset}): ${NEEDLE}`]);
  });

  it("a regular expression, case-insensitive; an invalid one is searched as plain text", async () => {
    expect(await readStoredResult(reader, { handle: HANDLE, pattern: "error .* ord-\\d+" }, options)).toContain(NEEDLE);
    const literal = await readStoredResult(readerOf({ [HANDLE]: "a\nprice (USD\nb" }), { handle: HANDLE, pattern: "(usd" }, options);
    expect(literal).toContain("line 2 (offset 2): price (USD");
  });

  it("at most maxMatches lines, then where to continue; continuing from there gives the next ones", async () => {
    const first = await readStoredResult(reader, { handle: HANDLE, pattern: "worker-3 " }, { ...options, maxMatches: 5 });
    const lines = first.split("\n");
    expect(lines).toHaveLength(6);
    const more = /more from (\{.*\})\]$/.exec(lines[0]!)![1]!;
    const next = await readStoredResult(reader, JSON.parse(more), { ...options, maxMatches: 5 });
    const offsets = (s: string) => [...s.matchAll(/offset (\d+)\)/g)].map((m) => Number(m[1]));
    expect(Math.min(...offsets(next))).toBeGreaterThan(Math.max(...offsets(first)));
    for (const line of next.split("\n").slice(1)) expect(line).toContain("worker-3 ");
  });

  it("no match: says so", async () => {
    expect(await readStoredResult(reader, { handle: HANDLE, pattern: "no such thing" }, options)).toMatch(/0 lines matching .*\nno line matches$/);
  });
});

describe("read_stored_result: bad calls", () => {
  const reader = readerOf({ [HANDLE]: "some text" });
  it.each([
    [{ handle: 42 }, "INVALID_ARGUMENT", "handle"],
    [{ handle: HANDLE, offset: -1 }, "INVALID_ARGUMENT", "offset"],
    [{ handle: HANDLE, offset: 1.5 }, "INVALID_ARGUMENT", "offset"],
    [{ handle: HANDLE, offset: 10 }, "INVALID_ARGUMENT", "offset"],
    [{ handle: HANDLE, length: 0 }, "INVALID_ARGUMENT", "length"],
    [{ handle: HANDLE, length: 1_000_000 }, "INVALID_ARGUMENT", "length"],
    [{ handle: HANDLE, pattern: "" }, "INVALID_ARGUMENT", "pattern"],
    [{ handle: HANDLE, pattern: "x", length: 5 }, "INVALID_ARGUMENT", "length"],
    [{ handle: HANDLE, page: 2 }, "INVALID_ARGUMENT", "page"],
    [{ handle: "spill-ffffffffffffffffffffffff" }, "SPILL/UNKNOWN_HANDLE", "handle"],
  ])("%j → %s at %s (typed by readStoredResult, isError text from the tool)", async (input, code, path) => {
    await expect(readStoredResult(reader, input, options)).rejects.toMatchObject({ code, details: expect.objectContaining({ path }) });
    const answer = await createReadStoredResultTool(() => reader, options).execute(input as Record<string, unknown>);
    expect(answer.isError).toBe(true);
    expect(answer.output.startsWith(`${TOOL_NAME}: `)).toBe(true);
  });

  it("a session without the capability: the tool says so (isError)", async () => {
    const answer = await createReadStoredResultTool(() => undefined, options).execute({ handle: HANDLE });
    expect(answer).toEqual({ output: expect.stringContaining("no stored results"), isError: true });
  });
});

describe("read_stored_result as a configured tool", () => {
  it('mounts from { "name": "read_stored_result", "module": "read-stored-result" } and reads what the session spilled', async () => {
    const session = await createSession({
      session: { context: { module: "context-simple", config: { model: "gpt-4o" } } },
      tools: [{ name: "read_stored_result", module: "read-stored-result" }],
    });
    try {
      const tool = session.coordinator.get("tools", "read_stored_result")!;
      expect(tool.definition.function.name).toBe("read_stored_result");
      const log = bigLog(200_000);
      for (const m of toolRound("Why did order ord-77123 fail?", log)) await session.context.addMessage(m);
      const window = await session.context.getMessagesForRequest(16_000);
      const handle = /spill-[0-9a-f]{24}/.exec(String(window[2]!.content))![0];
      const page = await tool.execute({ handle, offset: 150_000, length: 5_000 });
      expect(page.isError).toBeUndefined();
      expect(page.output.slice(page.output.indexOf("\n") + 1)).toBe(log.slice(150_000, 155_000));
    } finally {
      await session.close();
    }
  });

  it("a bad config is INVALID_MODULE_CONFIG naming the option", async () => {
    await expect(
      createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "read_stored_result", module: "read-stored-result", config: { maxLength: 0 } }] }),
    ).rejects.toMatchObject({ code: "INVALID_MODULE_CONFIG", message: expect.stringContaining("maxLength") });
  });
});
