/**
 * Whole programs in the docs, and how they run (run-programs.test.ts).
 *
 * A TypeScript block is a **program** when it has top-level code that runs — a statement that is
 * not an import, an export or a declaration (function, class, interface, type, declare, enum).
 * Every program carries a mark on the line directly above its fence:
 *
 * | mark                               | meaning                                                       |
 * |------------------------------------|---------------------------------------------------------------|
 * | `<!-- run -->`                     | run as written, in an empty folder; it must exit 0            |
 * | `<!-- run: <folder> -->`           | the same, in a copy of <folder> (repository path): its config, its modules |
 * | `<!-- no-run: <reason> -->`        | a program that must not run here (a port, a server elsewhere, a test file); the reason is said |
 *
 * A block runs as a user's file would: TypeScript transpiled to an ES module (esbuild, no
 * bundling) written under .cache/doc-runs/ so its imports ("amplifier-ts", "@amplifier-ts/…",
 * "zod") resolve from the repository root — the BUILT packages, like a consumer's node_modules —
 * then `node` with the folder's copy as the working directory.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { ROOT, type Fence } from "./markdown.js";

export type ProgramMark = { kind: "run"; folder?: string } | { kind: "no-run"; reason: string };

const MARK = /^<!--\s*(run|no-run)(?::\s*(.*?))?\s*-->$/;

/** The mark above a fence; undefined when there is none; an Error for a malformed one. */
export function markOf(fence: Fence): ProgramMark | Error | undefined {
  if (!fence.above.startsWith("<!--")) return undefined;
  const match = MARK.exec(fence.above);
  if (match === null) return fence.above.includes("run") ? new Error(`unreadable mark ${fence.above}`) : undefined;
  const [, kind, argument] = match;
  if (kind === "no-run") return argument ? { kind: "no-run", reason: argument } : new Error("<!-- no-run: … --> needs a reason");
  return argument ? { kind: "run", folder: argument } : { kind: "run" };
}

const DECLARATION = /^(?:import|export|(?:async\s+)?function\*?|class|interface|type|declare|enum|abstract\s+class)\b/;

/** Has the block top-level code that runs? (Column-0 lines that are not declarations, comments or closers.) */
export function isProgram(code: string): boolean {
  let inComment = false;
  for (const line of code.split("\n")) {
    if (inComment) {
      if (line.includes("*/")) inComment = false;
      continue;
    }
    if (line.startsWith("/*")) {
      inComment = !line.includes("*/");
      continue;
    }
    if (line === "" || /^[\s})\]]/.test(line) || line.startsWith("//")) continue;
    if (!DECLARATION.test(line)) return true;
  }
  return false;
}

export interface ProgramRun {
  status: number | null;
  output: string;
  /** The folder the program ran in (a copy of the mark's folder); the caller removes it. */
  cwd: string;
}

/** Transpiles and runs one block; `name` keys its file under .cache/doc-runs/. */
export function runProgram(code: string, name: string, folder: string | undefined, timeoutMs: number): ProgramRun {
  const { code: js } = transformSync(code, { loader: "ts", format: "esm", target: "es2022", sourcemap: "inline", sourcefile: name });
  const dir = join(ROOT, ".cache", "doc-runs");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name.replace(/[^A-Za-z0-9]+/g, "-")}.mjs`);
  writeFileSync(file, js);
  const cwd = mkdtempSync(join(tmpdir(), "doc-program-"));
  if (folder !== undefined) cpSync(join(ROOT, folder), cwd, { recursive: true });
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // vitest's own loader flags are not the user's
  const result = spawnSync(process.execPath, ["--enable-source-maps", file], { cwd, env, encoding: "utf8", timeout: timeoutMs });
  return { status: result.status, output: `${result.stdout}${result.stderr}${result.error ? String(result.error) : ""}`, cwd };
}

export function removeRun(run: ProgramRun): void {
  rmSync(run.cwd, { recursive: true, force: true });
}
