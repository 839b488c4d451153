import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

/** A fresh folder under the system temp dir, and its removal. */
export async function makeTempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `amplifier-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Bundles test/stores/fixtures/jsonl-writer.ts (and the store it imports) into one plain .mjs
 * with esbuild — a dependency of the package already — so child processes run real compiled
 * code with nothing but `node`.
 */
export async function bundleWriter(outDir: string): Promise<string> {
  const outfile = join(outDir, "jsonl-writer.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/jsonl-writer.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
  });
  return outfile;
}

export interface Writer {
  child: ChildProcess;
  /** Every complete stdout line so far. */
  lines: string[];
  /** Resolves with the first line (past or future) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export function startWriter(script: string, args: string[]): Writer {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve(line: string): void }[] = [];
  let partial = "";
  let errors = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.pattern.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    lines,
    exited,
    stderr: () => errors,
    waitFor(pattern, timeoutMs = 10_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; stderr: ${errors}`)), timeoutMs);
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then(() => {
          clearTimeout(timer);
          const line = lines.find((l) => pattern.test(l));
          if (line !== undefined) resolve(line);
          else reject(new Error(`the writer exited before printing ${pattern}; stderr: ${errors}`));
        });
      });
    },
  };
}

/** What jsonlWriterChildren gives a describe's tests. */
export interface JsonlWriterChildren {
  /** The running test's fresh folder. */
  readonly dir: string;
  /** Starts the bundled jsonl-writer fixture with `args`; it is SIGKILLed when the test ends. */
  start(args: string[]): Writer;
}

/**
 * For tests beside JSONL writer processes; call it inside a describe. It bundles the jsonl-writer
 * fixture once (its folder `amplifier-<prefix>-bundle-…` removed after all), gives each test a
 * fresh folder `amplifier-<prefix>-…`, and after each test SIGKILLs every writer it started, awaits
 * `cleanup` (the test's stores closing), then removes the folder.
 */
export function jsonlWriterChildren(prefix: string, cleanup: () => Promise<unknown> = async () => undefined): JsonlWriterChildren {
  let scriptDir: Awaited<ReturnType<typeof makeTempDir>>;
  let script: string;
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  const writers: Writer[] = [];
  beforeAll(async () => {
    scriptDir = await makeTempDir(`${prefix}-bundle`);
    script = await bundleWriter(scriptDir.dir);
  });
  afterAll(() => scriptDir.remove());
  beforeEach(async () => {
    temp = await makeTempDir(prefix);
  });
  afterEach(async () => {
    for (const w of writers.splice(0)) w.child.kill("SIGKILL");
    await cleanup();
    await temp.remove();
  });
  return {
    get dir() {
      return temp.dir;
    },
    start(args) {
      const writer = startWriter(script, args);
      writers.push(writer);
      return writer;
    },
  };
}

/** A pid that belonged to a process which has exited (for stale locks). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await new Promise((resolve) => child.on("exit", resolve));
  return pid;
}

/**
 * Bundles test/stores/fixtures/<name>.ts with esbuild into .cache/test-stores/ inside the repo (so
 * packages such as `pg` and `redis` resolve from node_modules at run time); returns the path.
 */
export function bundleStoreFixture(name: string): Promise<string> {
  const outfile = fileURLToPath(new URL(`../../.cache/test-stores/${name}-${process.pid}.mjs`, import.meta.url));
  return bundleFixture(new URL(`./fixtures/${name}.ts`, import.meta.url), outfile);
}

/** Bundles the fixture `entry` with esbuild into `outfile`, packages left to resolve at run time; returns `outfile`. */
async function bundleFixture(entry: URL, outfile: string): Promise<string> {
  await build({
    entryPoints: [fileURLToPath(entry)],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
  });
  return outfile;
}

/**
 * For tests that start (and kill -9) a child process; call it inside a describe. Before all: a
 * fresh folder `amplifier-<prefix>-…` (`dir`) and the fixture `entry` bundled into
 * node_modules/.cache/amplifier-ts-tests/ (`script`: inside the repo, so the child resolves
 * packages from node_modules); after all, both removed.
 */
export function tempDirAndBundledChild(prefix: string, entry: URL): { readonly dir: string; readonly script: string } {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let script: string;
  beforeAll(async () => {
    temp = await makeTempDir(prefix);
    const name = basename(fileURLToPath(entry)).replace(/\.ts$/, "");
    script = await bundleFixture(entry, fileURLToPath(new URL(`../../node_modules/.cache/amplifier-ts-tests/${name}-${process.pid}.mjs`, import.meta.url)));
  });
  afterAll(async () => {
    await temp.remove();
    await rm(script, { force: true });
  });
  return {
    get dir() {
      return temp.dir;
    },
    get script() {
      return script;
    },
  };
}
