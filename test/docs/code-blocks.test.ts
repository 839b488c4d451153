import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseMarkdown, readDoc, ROOT, shippedDocs, type Fence } from "./markdown.js";

/**
 * Every ```ts / ```typescript block of the shipped docs (markdown.ts: README.md, contracts/*.md,
 * every workspace package's README, the third-party example's README) compiles under `strict`, as
 * a user's file of its own: NodeNext, against the BUILT packages by their names ("amplifier-ts",
 * "amplifier-ts/testing", "@amplifier-ts/…", resolved from the repository root as a consumer's
 * node_modules would), like test/package/exports.test.ts. Whole programs are also run
 * (run-programs.test.ts, marks in doc-programs.ts).
 *
 * How a block becomes a file:
 * - it is written as is to .cache/doc-blocks/ (line numbers kept, so errors point into the doc);
 * - a block without import/export gets `export {}` appended: a module, as a user's file would be
 *   (top-level await, its own scope);
 * - nothing else is declared: every name a block uses is defined in it or imported from the
 *   packages, so a reader who copies it gets a file that compiles (issue 25, item 14: a
 *   `MyContext` the docs never defined was declared here, and the README's snippet compiled only
 *   in this test).
 *
 * The one exception, by info-string flag: ```ts signatures — an API listing in signature notation
 * (optional marks and elisions in parameter lists), which is not a program. Such blocks are pinned
 * in SIGNATURE_LISTINGS; a new one, or an unknown flag, fails this test.
 */
const SIGNATURES_FLAG = "signatures";
const SIGNATURE_LISTINGS = ["contracts/HOOKS.md:58", "contracts/TOKENS.md:7", "contracts/WINDOW.md:11"];
const TS_LANGS = new Set(["ts", "typescript"]);


interface Block extends Fence {
  doc: string;
}

const blocksOf = (doc: string, fences: Fence[]): Block[] => fences.filter((f) => TS_LANGS.has(f.info[0] ?? "")).map((f) => ({ ...f, doc }));
const where = (block: Block): string => `${block.doc}:${block.line}`;
const isModule = (code: string): boolean => /^\s*(?:import|export)\b/m.test(code);

/** Compiles the blocks as files of their own (one program), in `dir`; returns tsc's status and its diagnostics mapped to doc:line. */
function compileBlocks(blocks: Block[], dir: string): { status: number | null; diagnostics: string } {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, Block>();
  blocks.forEach((block, i) => {
    const file = join(dir, `${block.doc.replace(/[^A-Za-z0-9]+/g, "-")}-${block.line}-${i}.ts`);
    writeFileSync(file, isModule(block.code) ? block.code : `${block.code}export {};\n`);
    files.set(relative(ROOT, file).replaceAll("\\", "/"), block);
  });
  const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
  const args = ["--ignoreConfig", "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--pretty", "false", ...[...files.keys()].map((file) => join(ROOT, file))];
  const result = spawnSync(tsc, args, { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  // "<file>(<line>,<col>): error …" → "<doc>:<line in the doc>:<col> error …"
  const diagnostics = `${result.stdout}${result.stderr}`.replace(/^(\S+?)\((\d+),(\d+)\):/gm, (match, file: string, line: string, col: string) => {
    const block = files.get(file.replaceAll("\\", "/"));
    return block ? `${block.doc}:${block.line + Number(line)}:${col}` : match;
  });
  return { status: result.status, diagnostics };
}

describe("the TypeScript blocks of the shipped docs", () => {
  const blocks = shippedDocs().flatMap((doc) => blocksOf(doc, readDoc(doc).fences));

  it("are found in the README, the contracts and the package READMEs", () => {
    const docs = new Set(blocks.map((block) => block.doc));
    for (const doc of ["README.md", "contracts/ERRORS.md", "contracts/HOOKS.md", "contracts/MODULES.md", "modules/window/README.md", "examples/third-party-plugin/README.md"]) expect(docs, doc).toContain(doc);
  });

  it(`carry no flag but "${SIGNATURES_FLAG}", and the signature listings are only the pinned ones`, () => {
    const flags = blocks.flatMap((block) => block.info.slice(1).map((flag) => `${where(block)} ${flag}`));
    expect(flags.filter((flag) => !flag.endsWith(` ${SIGNATURES_FLAG}`))).toEqual([]);
    expect(blocks.filter((block) => block.info.includes(SIGNATURES_FLAG)).map(where).sort()).toEqual(SIGNATURE_LISTINGS);
  });

  it("compile under strict against the built packages, each as a file of its own", () => {
    const programs = blocks.filter((block) => !block.info.includes(SIGNATURES_FLAG));
    expect(programs.length).toBeGreaterThanOrEqual(8);
    const { status, diagnostics } = compileBlocks(programs, join(ROOT, ".cache", "doc-blocks"));
    expect(status, diagnostics).toBe(0);
  });

  it("the check bites: a block that stops compiling fails it, with the doc and line", () => {
    const doc = parseMarkdown(["# Broken", "", "```ts", 'import { createSession } from "amplifier-ts";', "", 'const session = await createSession("amplifier.config.json");', "await session.context.addMesage({ role: \"user\", content: 42 });", "```", ""].join("\n"));
    const { status, diagnostics } = compileBlocks(blocksOf("BROKEN.md", doc.fences), join(ROOT, ".cache", "doc-blocks-broken"));
    expect(status).not.toBe(0);
    expect(diagnostics).toMatch(/^BROKEN\.md:7:\d+ error TS2551: Property 'addMesage' does not exist/m);
  });
});
