import { execFileSync, spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, workspaceClosure } from "./workspace-manifests.js";

/**
 * Issue 27, done when: "a user of `fitWindow` alone installs ≤ 40 MB and no server driver". As a
 * user gets it: `npm pack` of @amplifier-ts/window and of the workspace packages it pulls in (their
 * versions are not on a registry yet; the built dist/, after test/support/build-packages.ts), `npm
 * install` of those tarballs into an EMPTY folder outside the repo (third-party dependencies from
 * npm's cache, else the registry), then:
 * - everything under node_modules weighs ≤ 40 MB (sum of the files' sizes; printed, with the heaviest packages);
 * - no server driver, bundler or provider/framework SDK is installed, at any depth;
 * - a plain Node ESM script in that folder imports fitWindow and createWindowFitter and fits a small
 *   OpenAI Chat conversation with a tool call under a budget that forces a cut.
 *
 * Time limit: packing three packages and one `npm install` take ~15 s on an idle 2-core machine;
 * 300 s leaves room for the same machine shared by several CPU-heavy jobs and a cold npm cache.
 */
const TIMEOUT_MS = 300_000;
const MAX_INSTALLED_BYTES = 40 * 1024 * 1024;
const PACKAGE = "@amplifier-ts/window";

/** Names that must not be installed (exact names, or every package of a scope ending in "/"), and why. */
const FORBIDDEN: ReadonlyArray<readonly [string, string]> = [
  ["pg", "PostgreSQL driver"],
  ["redis", "Redis driver"],
  ["@redis/", "Redis driver"],
  ["fastify", "HTTP server"],
  ["esbuild", "bundler"],
  ["@esbuild/", "bundler binaries"],
  ["openai", "provider SDK"],
  ["@anthropic-ai/", "provider SDK"],
  ["@ai-sdk/", "provider SDK"],
  ["@langchain/", "framework"],
  ["ai", "framework (Vercel AI SDK)"],
  ["@mastra/", "framework"],
  ["@openai/", "framework (OpenAI Agents)"],
];

let packDir = "";
let app = "";
let installed: InstalledPackage[] = [];

beforeAll(() => {
  const members = [...workspaceClosure(PACKAGE)];
  packDir = mkdtempSync(join(tmpdir(), "amplifier-fit-packs-"));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", ...members.flatMap((name) => ["--workspace", name]), "--pack-destination", packDir, "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: TIMEOUT_MS,
    }),
  ) as Array<{ name: string; filename: string }>;
  expect(packed.map((p) => p.name).sort()).toEqual(members.sort());
  app = mkdtempSync(join(tmpdir(), "amplifier-fit-app-"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "fit-window-user", version: "1.0.0", private: true, type: "module" }));
  const install = spawnSync(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...packed.map((p) => join(packDir, p.filename))],
    { cwd: app, encoding: "utf8", timeout: TIMEOUT_MS },
  );
  if (install.status !== 0) throw new Error(`npm install of ${members.join(", ")} failed (status ${install.status}):\n${install.stdout}${install.stderr}${install.error ?? ""}`);
  installed = installedPackages(join(app, "node_modules"));
  const total = installed.reduce((sum, p) => sum + p.bytes, 0);
  const heaviest = [...installed].sort((a, b) => b.bytes - a.bytes).slice(0, 6).map((p) => `${p.name} ${mb(p.bytes)}`);
  console.log(`fitWindow alone: ${installed.length} packages, ${mb(total)} installed (of ${mb(MAX_INSTALLED_BYTES)} allowed); heaviest: ${heaviest.join(", ")}`);
}, TIMEOUT_MS);

afterAll(() => {
  for (const dir of [packDir, app]) if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe(`a user of fitWindow alone (npm install of ${PACKAGE}'s tarballs into an empty folder)`, () => {
  it("installs ≤ 40 MB", () => {
    const total = installed.reduce((sum, p) => sum + p.bytes, 0);
    const by = [...installed].sort((a, b) => b.bytes - a.bytes).map((p) => `${p.name} ${mb(p.bytes)}`).join(", ");
    expect(total, `installed ${mb(total)}: ${by}`).toBeLessThanOrEqual(MAX_INSTALLED_BYTES);
  });

  it("installs no server driver, bundler, provider SDK or agent framework, at any depth", () => {
    const found = installed.flatMap((p) => {
      const rule = FORBIDDEN.find(([name]) => (name.endsWith("/") ? p.name.startsWith(name) : p.name === name));
      return rule ? [`${p.name} (${rule[1]}) at ${p.path}`] : [];
    });
    expect(found).toEqual([]);
    // The walk saw what it should: the package itself and its token counter's tokenizer.
    expect(installed.map((p) => p.name)).toEqual(expect.arrayContaining([PACKAGE, "@amplifier-ts/tokens", "tiktoken"]));
  });

  it("a plain Node ESM script imports fitWindow and fits a small conversation", () => {
    writeFileSync(join(app, "fit.mjs"), FIT_SCRIPT);
    const run = spawnSync(process.execPath, ["fit.mjs"], { cwd: app, encoding: "utf8", timeout: 60_000 });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as FitResult;
    console.log(`fit.mjs: kept ${result.kept} of ${result.given} messages, ${result.tokens} tokens (gpt-4o, countRequest) of a ${result.budget}-token budget`);
    expect(result.given).toBe(42);
    // The budget forced a cut: fewer messages, the system prompt and the newest question kept.
    expect(result.kept).toBeGreaterThan(2);
    expect(result.kept).toBeLessThan(result.given);
    expect(result.first).toBe("system");
    expect(result.lastIsNewest).toBe(true);
    expect(result.sameObjects).toBe(true);
    expect(result.pairingProblems).toEqual([]);
    expect(result.tokens).toBeLessThanOrEqual(result.budget);
    expect(result.report).toBe(true);
    // The fitter kept across calls gives the same window for the same messages.
    expect(result.fitterSame).toBe(true);
  });
});

interface FitResult {
  given: number;
  kept: number;
  first: string;
  lastIsNewest: boolean;
  sameObjects: boolean;
  pairingProblems: string[];
  /** The window counted with @amplifier-ts/tokens' gpt-4o counter (countRequest), not read from the report. */
  tokens: number;
  budget: number;
  report: boolean;
  fitterSame: boolean;
}

/**
 * What a user writes: OpenAI Chat messages (20 turns, each a question, a tool call, its result and an
 * answer), fitted to 600 tokens. Prints what the test asserts, as JSON on its last line.
 */
const FIT_SCRIPT = `import { fitWindow, createWindowFitter } from "@amplifier-ts/window";
// Installed with it (its counter): the window is counted here independently of the fitter's report.
import { getTokenCounter } from "@amplifier-ts/tokens";

const messages = [{ role: "system", content: "You are a careful assistant." }];
for (let i = 0; i < 10; i++) {
  messages.push({ role: "user", content: "Question " + i + ": what is in file " + i + "? " + "Please be thorough. ".repeat(10) });
  messages.push({ role: "assistant", content: null, tool_calls: [{ id: "call_" + i, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "src/" + i + ".ts" }) } }] });
  messages.push({ role: "tool", tool_call_id: "call_" + i, content: "export const value" + i + " = " + i + ";\\n".repeat(1) + "// line\\n".repeat(30) });
  messages.push({ role: "assistant", content: "File " + i + " exports value" + i + "." });
}
messages.push({ role: "user", content: "Summarize what you read." });

const budget = 600;
const { messages: window, report } = fitWindow(messages, { model: "gpt-4o", budget, report: true });

const pairingProblems = [];
for (let k = 0; k < window.length; k++) {
  const m = window[k];
  if (m.role === "assistant" && m.tool_calls?.length) {
    const pending = new Set(m.tool_calls.map((c) => c.id));
    let j = k + 1;
    for (; j < window.length && window[j].role === "tool"; j++) if (!pending.delete(window[j].tool_call_id)) pairingProblems.push("stray result at " + j);
    for (const id of pending) pairingProblems.push("call " + id + " at " + k + " has no result");
    k = j - 1;
  } else if (m.role === "tool") pairingProblems.push("result " + m.tool_call_id + " at " + k + " has no call before it");
}

const fitter = createWindowFitter({ model: "gpt-4o", budget });
const once = fitter.fit(messages);
const again = fitter.fit(messages);

console.log(JSON.stringify({
  given: messages.length,
  kept: window.length,
  first: window[0]?.role,
  lastIsNewest: window.at(-1) === messages.at(-1),
  sameObjects: window.every((m) => messages.includes(m)),
  pairingProblems,
  tokens: getTokenCounter("gpt-4o").countRequest(window),
  budget,
  report: typeof report === "object" && report !== null,
  fitterSame: once.length === again.length && once.every((m, i) => m === again[i]),
}));
`;

interface InstalledPackage {
  name: string;
  /** Folder relative to the app. */
  path: string;
  /** Sum of the sizes of its files, not counting the packages nested in its own node_modules. */
  bytes: number;
}

/** Every package folder under `nodeModules`, nested ones included (npm places a conflicting version inside its dependent). */
function installedPackages(nodeModules: string): InstalledPackage[] {
  const found: InstalledPackage[] = [];
  const visitPackage = (dir: string, name: string) => {
    found.push({ name, path: relative(join(nodeModules, ".."), dir), bytes: sizeOf(dir, true) });
    const nested = join(dir, "node_modules");
    if (exists(nested)) visitNodeModules(nested);
  };
  const visitNodeModules = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        for (const scoped of readdirSync(path, { withFileTypes: true })) visitPackage(join(path, scoped.name), `${entry.name}/${scoped.name}`);
      } else visitPackage(path, entry.name);
    }
  };
  visitNodeModules(nodeModules);
  // npm's own files under node_modules (the hidden lockfile, .bin links) count toward the total too.
  found.push({ name: "(node_modules dot-files)", path: "node_modules", bytes: readdirSync(nodeModules).filter((n) => n.startsWith(".")).reduce((sum, n) => sum + sizeOf(join(nodeModules, n), false), 0) });
  return found;
}

/** Bytes of the files under `path` (symlinks count as themselves, not followed); `skipNodeModules` leaves nested packages to their own entry. */
function sizeOf(path: string, skipNodeModules: boolean): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let sum = 0;
  for (const entry of readdirSync(path)) {
    if (skipNodeModules && entry === "node_modules") continue;
    sum += sizeOf(join(path, entry), false);
  }
  return sum;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
