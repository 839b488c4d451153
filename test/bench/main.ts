/**
 * `npm run bench`: the context-manager benchmark of issue 4 (and the figures issue 5 adds).
 *
 *   npx esbuild test/bench/main.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=.cache/bench/main.mjs && node --expose-gc .cache/bench/main.mjs [options]
 *
 * Options:
 *   --quick            smaller sizes and fewer turns (a smoke run; not reference figures)
 *   --only <ids>       run only these scenarios (comma-separated ids: agent-loop, resume, memory, langchain, peers, replay, pipelines, recall, stores-postgres, stores-redis, stores-turn, agent-memory, stores-fleet, agent-stores)
 *   --out <file>       where to write the report
 *   --list             print the scenario ids and exit
 * A full run (no --quick, no --only) writes BENCHMARKS.md; any other run writes
 * .cache/bench/BENCHMARKS.partial.md unless --out is given, so a smoke run never replaces the
 * committed figures. Raw figures go to .cache/bench/results.json.
 *
 * Adding a scenario: a file exporting a `Scenario` (scenario.ts), one line in SCENARIOS below.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg } from "node:os";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapStatistics } from "node:v8";
import { agentLoopScenario } from "./agent-loop-turn.js";
import { agentMemoryChild, agentMemoryScenario } from "./agent-memory.js";
import { langchainScenario } from "./langchain-trim.js";
import { machineInfo } from "./machine-info.js";
import { hasGc } from "./measure.js";
import { memoryChild, memoryScenario } from "./memory.js";
import { renderReport, type ReportInput } from "./report.js";
import { pipelinesScenario } from "./pipelines.js";
import { peersChild, peersScenario } from "./peers.js";
import { recallScenario } from "./recall.js";
import { replayScenario } from "./replay.js";
import { resumeChild, resumeScenario } from "./resume.js";
import { firstWindowChild } from "./postgres-first-window.js";
import { agentStoresScenario } from "./agent-stores.js";
import { postgresStoreScenario } from "./stores-postgres.js";
import { redisStoreScenario, storesTurnScenario } from "./stores-redis.js";
import { fleetChild, fleetScenario } from "./stores-fleet.js";
import type { BenchContext, BenchOptions, Scenario } from "./scenario.js";

export const SCENARIOS: readonly Scenario[] = [agentLoopScenario, resumeScenario, memoryScenario, langchainScenario, peersScenario, replayScenario, pipelinesScenario, recallScenario, postgresStoreScenario, redisStoreScenario, storesTurnScenario, agentMemoryScenario, fleetScenario, agentStoresScenario];

const CHILDREN: Record<string, (args: string[]) => Promise<void>> = {
  resume: resumeChild,
  peers: peersChild,
  memory: memoryChild,
  "agent-memory": agentMemoryChild,
  "stores-fleet": fleetChild,
  "pg-first-window": firstWindowChild,
};

function optionsFor(quick: boolean): BenchOptions {
  return quick
    ? { quick, sizes: [1_000, 10_000], turns: 40, warmup: 10, bigCount: 10_000, budget: 128_000, langchainDeadlineS: 10, langchainBudgetS: 10 }
    : { quick, sizes: [1_000, 10_000, 100_000], turns: 200, warmup: 50, bigCount: 100_000, budget: 128_000, langchainDeadlineS: 120, langchainBudgetS: 90 };
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--child") {
    const child = CHILDREN[argv[1] ?? ""];
    if (!child) throw new Error(`unknown child ${argv[1]}`);
    await child(argv.slice(2));
    return 0;
  }
  const args = parseArgs(argv);
  if (args.list) {
    for (const s of SCENARIOS) console.log(`${s.id}\t${s.title}`);
    return 0;
  }
  const unknown = args.only?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(", ")}; known: ${SCENARIOS.map((s) => s.id).join(", ")}`);
    return 2;
  }
  const selected = SCENARIOS.filter((s) => !args.only || args.only.includes(s.id));
  const options = optionsFor(args.quick);
  const entry = fileURLToPath(import.meta.url);
  mkdirSync(".cache/bench", { recursive: true });
  const tmpRoot = await mkdtemp(resolve(".cache/bench/tmp-"));
  const started = new Date();
  const loadStart = loadavg()[0] ?? 0;
  const commit = gitHead();
  const t0 = performance.now();
  const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
  if (!hasGc()) log("warning: run with node --expose-gc, or heap figures are not after a full GC");
  const ctx: BenchContext = { options, entry, tmpRoot, memo: new Map(), log };
  const results: ReportInput["results"] = [];
  try {
    for (const scenario of selected) {
      log(`== ${scenario.id}: ${scenario.title}`);
      const s0 = performance.now();
      try {
        const result = await scenario.run(ctx);
        results.push({ scenario, result, durationS: (performance.now() - s0) / 1000 });
        for (const c of result.checks) log(`  ${c.status.padEnd(5)} ${c.label}: ${c.figure} (target ${c.target})`);
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`  ERROR ${text}`);
        results.push({ scenario, error: text, durationS: (performance.now() - s0) / 1000 });
      }
    }
  } finally {
    await rm(tmpRoot, { recursive: true, force: true });
  }

  const full = !args.quick && !args.only;
  const out = args.out ?? (full ? "BENCHMARKS.md" : ".cache/bench/BENCHMARKS.partial.md");
  const report = renderReport({
    machine: machineInfo(getHeapStatistics().heap_size_limit),
    command: process.env.npm_lifecycle_event === "bench" ? ["npm run bench", ...(argv.length ? ["--", ...argv] : [])].join(" ") : nodeCommand(entry, argv),
    nodeCommand: nodeCommand(entry, argv),
    startedAt: started,
    durationS: (performance.now() - t0) / 1000,
    options,
    gcExposed: hasGc(),
    load: { start: loadStart, end: loadavg()[0] ?? 0 },
    commit,
    results,
  });
  writeFileSync(out, `${report}\n${keptSections(out)}`);
  writeFileSync(
    ".cache/bench/results.json",
    JSON.stringify({ startedAt: started, options, results: results.map((r) => ({ id: r.scenario.id, error: r.error, checks: r.result?.checks, data: r.result?.data })) }, null, 2),
  );
  log(`wrote ${out} and .cache/bench/results.json`);
  return results.some((r) => r.error !== undefined) ? 1 : 0;
}

function parseArgs(argv: string[]): { quick: boolean; only?: string[]; out?: string; list: boolean } {
  const parsed: { quick: boolean; only?: string[]; out?: string; list: boolean } = { quick: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--quick") parsed.quick = true;
    else if (a === "--list") parsed.list = true;
    else if (a === "--only" || a.startsWith("--only=")) parsed.only = (a.includes("=") ? a.slice(7) : (argv[++i] ?? "")).split(",").filter(Boolean);
    else if (a === "--out" || a.startsWith("--out=")) parsed.out = a.includes("=") ? a.slice(6) : argv[++i];
    else throw new Error(`unknown option ${a} (use --quick, --only <ids>, --out <file>, --list)`);
  }
  return parsed;
}

function nodeCommand(entry: string, argv: string[]): string {
  return ["node", ...process.execArgv, relative(process.cwd(), entry), ...argv].join(" ");
}

/** HEAD when the run started, and whether the measured code (core, modules, contracts) had uncommitted changes. */
function gitHead(): string | undefined {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const head = git("rev-parse", "--short", "HEAD");
    const dirty = git("status", "--porcelain", "--untracked-files=no", "--", "core", "modules", "contracts") !== "";
    return dirty ? `${head} + uncommitted changes in core/modules/contracts` : head;
  } catch {
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);

/**
 * Sections other tools write into BENCHMARKS.md (e.g. `npm run eval:recall`) sit between
 * `<!-- begin:NAME -->` and `<!-- end:NAME -->` markers; a new bench report keeps them, after its own.
 */
export function keptSections(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return "";
  }
  const blocks = text.match(/<!-- begin:([\w.-]+) -->[\s\S]*?<!-- end:\1 -->/g) ?? [];
  return blocks.map((b) => `\n${b}\n`).join("");
}
