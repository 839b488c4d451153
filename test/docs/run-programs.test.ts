import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isProgram, markOf, removeRun, runProgram } from "./doc-programs.js";
import { parseMarkdown, readDoc, shippedDocs, type Fence } from "./markdown.js";

/**
 * Every whole program in the shipped docs (README.md, contracts/*.md, every package's README) is
 * run as written, or says why not — the convention is in doc-programs.ts: `<!-- run -->`,
 * `<!-- run: <folder> -->` or `<!-- no-run: <reason> -->` on the line above the fence.
 * code-blocks.test.ts compiles every block; this one runs the programs.
 */
const TS_LANGS = new Set(["ts", "typescript"]);
// A guard against a hung program, not a speed check: node start, the packages' import and a
// session, on a loaded 2-core machine, with room.
const PROGRAM_TIMEOUT_MS = 50_000;

interface Block extends Fence {
  doc: string;
}
const where = (block: Block) => `${block.doc}:${block.line}`;
const tsBlocks = (doc: string, fences: Fence[]): Block[] => fences.filter((f) => TS_LANGS.has(f.info[0] ?? "") && !f.info.includes("signatures")).map((f) => ({ ...f, doc }));

describe("the whole programs of the shipped docs", () => {
  const blocks = shippedDocs().flatMap((doc) => tsBlocks(doc, readDoc(doc).fences));
  const runs = blocks.flatMap((block) => {
    const mark = markOf(block);
    return mark !== undefined && !(mark instanceof Error) && mark.kind === "run" ? [{ block, folder: mark.folder }] : [];
  });

  it("each is marked run or no-run (with a reason), and each mark is readable and sits above a program", () => {
    const problems = blocks.flatMap((block) => {
      const mark = markOf(block);
      if (mark instanceof Error) return [`${where(block)} ${mark.message}`];
      if (isProgram(block.code) && mark === undefined) return [`${where(block)} is a whole program: mark it <!-- run --> or <!-- no-run: why -->`];
      if (!isProgram(block.code) && mark !== undefined) return [`${where(block)} is marked but declares only (nothing would run)`];
      return [];
    });
    expect(problems).toEqual([]);
    expect(runs.map(({ block }) => where(block))).toContain("README.md:" + readmeLoop().line);
  });

  it.each(runs.map(({ block, folder }) => [where(block), block, folder] as const))("%s runs as written and exits 0", (name, block, folder) => {
    const run = runProgram(block.code, name, folder, PROGRAM_TIMEOUT_MS);
    try {
      expect(run.status, run.output).toBe(0);
    } finally {
      removeRun(run);
    }
  });

  it("README's orchestrator loop, as written, fills the memory under the session id of the context (issue 25, item 11)", () => {
    const block = readmeLoop();
    const mark = markOf(block);
    expect(mark).toEqual({ kind: "run", folder: "test/docs/programs/orchestrator-loop" });
    const run = runProgram(block.code, "README-orchestrator-loop-memory", (mark as { folder: string }).folder, PROGRAM_TIMEOUT_MS);
    try {
      expect(run.status, run.output).toBe(0);
      const memory = JSON.parse(readFileSync(join(run.cwd, "memory.json"), "utf8")) as {
        contextSessionId: string;
        coordinatorSessionId: string;
        sessions: Record<string, Array<{ eventType: string; content: unknown }>>;
      };
      expect(memory.contextSessionId).toBe("readme-loop");
      expect(Object.keys(memory.sessions)).toEqual(["readme-loop"]);
      expect(memory.sessions["readme-loop"]).toEqual([
        { eventType: "user_message", content: "Why do the tests fail?" },
        { eventType: "tool_call", content: { tool: "read_file", arguments: { path: "package.json" }, callId: "call_1" } },
        { eventType: "tool_result", content: { tool: "read_file", result: { output: '{ "scripts": {} }' }, callId: "call_1" } },
        { eventType: "agent_response", content: 'package.json says { "scripts": {} }: there is no test script.' },
      ]);
    } finally {
      removeRun(run);
    }
  });

  it("the check bites: a program without a mark is found, a failing program fails, a mark above a declaration is refused", () => {
    const doc = parseMarkdown(
      ["```ts", 'console.log("unmarked");', "```", "", "<!-- run -->", "```ts", 'throw new Error("boom");', "```", "", "<!-- run -->", "```ts", "export function f() {}", "```", "", "<!-- no-run -->", "```ts", "f();", "```", ""].join("\n"),
    );
    const [unmarked, failing, declaration, reasonless] = tsBlocks("BROKEN.md", doc.fences);
    expect(isProgram(unmarked!.code) && markOf(unmarked!) === undefined).toBe(true);
    const run = runProgram(failing!.code, "BROKEN-failing", undefined, PROGRAM_TIMEOUT_MS);
    removeRun(run);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("boom");
    expect(isProgram(declaration!.code)).toBe(false);
    expect(markOf(declaration!)).toEqual({ kind: "run" });
    expect(markOf(reasonless!)).toBeInstanceOf(Error);
  });
});

/** README's "An orchestrator loop" block. */
function readmeLoop(): Block {
  const doc = readDoc("README.md");
  const heading = doc.outside.indexOf("## An orchestrator loop");
  const block = tsBlocks("README.md", doc.fences).find((fence) => fence.line > heading);
  if (block === undefined) throw new Error('README.md has no ts block after "## An orchestrator loop"');
  return block;
}
