/**
 * `npm run bench`: every benchmark scenario, written as BENCHMARKS.md (report.ts) — the only
 * thing that writes that file.
 *
 *   npx esbuild test/bench/main.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=.cache/bench/main.mjs && node --expose-gc .cache/bench/main.mjs [options]
 *
 * Options:
 *   --quick            smaller sizes and fewer turns (a smoke run; not reference figures)
 *   --only <ids>       run only these scenarios (comma-separated; `--list` prints the ids)
 *   --out <file>       where to write the report
 *   --list             print the scenario ids and exit
 *   --baseline <rev>   side by side: the same scenarios for HEAD and <rev> (built in a temporary git
 *                      worktree), alternately, `--repeats` times each (default 3); prints and writes
 *                      .cache/bench/side-by-side.md (or --out) with both figures, their ratio and the
 *                      noise; never writes BENCHMARKS.md. `--keep-baseline` keeps the worktree for reuse.
 * A full run (no --quick, no --only) writes BENCHMARKS.md; a --quick run of every scenario too (the
 * report says it is a quick run, with the load average); a run with --only writes
 * .cache/bench/BENCHMARKS.partial.md unless --out is given. Raw figures go to .cache/bench/results.json.
 * REALTALK (the recall eval's outside data) is read from .cache/eval/realtalk or REALTALK_DIR
 * (test/eval/data/realtalk/README.md); without it the recall-eval scenario reports ERROR for it.
 *
 * Adding a scenario: a file exporting a `Scenario` (scenario.ts), one line in SCENARIOS below.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg } from "node:os";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapStatistics } from "node:v8";
import { agentLoopScenario } from "./agent-loop-turn.js";
import { agentMemoryChild, agentMemoryScenario } from "./agent-memory.js";
import { closedSessionChild, closedSessionScenario } from "./closed-session.js";
import { fitWindowChild, fitWindowScenario } from "./fit-window.js";
import { langchainScenario } from "./langchain-trim.js";
import { machineInfo } from "./machine-info.js";
import { hasGc } from "./measure.js";
import { memoryChild, memoryScenario } from "./memory.js";
import { renderReport, type ReportInput } from "./report.js";
import { pipelinesScenario } from "./pipelines.js";
import { pricedCompactionScenario } from "./priced-compaction.js";
import { peersChild, peersScenario } from "./peers.js";
import { recallScenario } from "./recall.js";
import { recallQualityScenario } from "./recall-quality.js";
import { runSideBySide } from "./side-by-side.js";
import { replayScenario } from "./replay.js";
import { resumeChild, resumeScenario } from "./resume.js";
import { firstWindowChild } from "./postgres-first-window.js";
import { agentStoresScenario } from "./agent-stores.js";
import { backgroundSummaryScenario } from "./background-summary.js";
import { postgresStoreScenario } from "./stores-postgres.js";
import { redisStoreScenario, storesTurnScenario } from "./stores-redis.js";
import { fleetChild, fleetScenario } from "./stores-fleet.js";
import type { BenchContext, BenchOptions, Scenario } from "./scenario.js";

export const SCENARIOS: readonly Scenario[] = [agentLoopScenario, resumeScenario, memoryScenario, langchainScenario, peersScenario, fitWindowScenario, replayScenario, pipelinesScenario, recallScenario, postgresStoreScenario, redisStoreScenario, storesTurnScenario, agentMemoryScenario, fleetScenario, agentStoresScenario, recallQualityScenario, pricedCompactionScenario, backgroundSummaryScenario, closedSessionScenario];

const CHILDREN: Record<string, (args: string[]) => Promise<void>> = {
  resume: resumeChild,
  peers: peersChild,
  memory: memoryChild,
  "agent-memory": agentMemoryChild,
  "stores-fleet": fleetChild,
  "pg-first-window": firstWindowChild,
  "fit-window": fitWindowChild,
  "closed-session": closedSessionChild,
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
  if (args.baseline !== undefined) {
    const t0 = performance.now();
    return runSideBySide({
      baseline: args.baseline,
      ids: selected.map((s) => s.id),
      quick: args.quick,
      repeats: args.repeats,
      keepBaseline: args.keepBaseline,
      out: resolve(args.out ?? ".cache/bench/side-by-side.md"),
      entry,
      machine: machineInfo(getHeapStatistics().heap_size_limit),
      log: (message) => process.stderr.write(`[side-by-side ${((performance.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${message}\n`),
    });
  }
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
      const load0 = loadavg()[0] ?? 0;
      try {
        const result = await scenario.run(ctx);
        results.push({ scenario, result, durationS: (performance.now() - s0) / 1000, load: { start: load0, end: loadavg()[0] ?? 0 } });
        for (const c of result.checks) log(`  ${c.status.padEnd(5)} ${c.label}: ${c.figure} (target ${c.target})`);
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`  ERROR ${text}`);
        results.push({ scenario, error: text, durationS: (performance.now() - s0) / 1000, load: { start: load0, end: loadavg()[0] ?? 0 } });
      }
    }
  } finally {
    await rm(tmpRoot, { recursive: true, force: true });
  }

  const out = args.out ?? (!args.only ? "BENCHMARKS.md" : ".cache/bench/BENCHMARKS.partial.md");
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
  writeFileSync(out, `${report}\n`);
  // BENCH_RESULTS: the side-by-side runner gives each HEAD run its own file (several runs may share a checkout).
  writeFileSync(
    process.env.BENCH_RESULTS ?? ".cache/bench/results.json",
    JSON.stringify({ startedAt: started, options, results: results.map((r) => ({ id: r.scenario.id, error: r.error, checks: r.result?.checks, data: r.result?.data })) }, null, 2),
  );
  log(`wrote ${out} and ${process.env.BENCH_RESULTS ?? ".cache/bench/results.json"}`);
  return results.some((r) => r.error !== undefined) ? 1 : 0;
}

interface Args {
  quick: boolean;
  only?: string[];
  out?: string;
  list: boolean;
  baseline?: string;
  repeats: number;
  keepBaseline: boolean;
}

function parseArgs(argv: string[]): Args {
  const parsed: Args = { quick: false, list: false, repeats: 3, keepBaseline: false };
  const value = (a: string, i: number): [string, number] => (a.includes("=") ? [a.slice(a.indexOf("=") + 1), i] : [argv[i + 1] ?? "", i + 1]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.split("=")[0];
    if (a === "--quick") parsed.quick = true;
    else if (a === "--list") parsed.list = true;
    else if (a === "--keep-baseline") parsed.keepBaseline = true;
    else if (name === "--only") {
      const [v, next] = value(a, i);
      parsed.only = v.split(",").filter(Boolean);
      i = next;
    } else if (name === "--out") {
      [parsed.out, i] = value(a, i);
    } else if (name === "--baseline") {
      [parsed.baseline, i] = value(a, i);
      if (!parsed.baseline) throw new Error("--baseline expects a git revision (a commit, branch or tag)");
    } else if (name === "--repeats") {
      const [v, next] = value(a, i);
      parsed.repeats = Number(v);
      i = next;
      if (!Number.isInteger(parsed.repeats) || parsed.repeats < 1) throw new Error(`--repeats expects a whole number ≥ 1, got ${v}`);
    } else throw new Error(`unknown option ${a} (use --quick, --only <ids>, --out <file>, --list, --baseline <rev>, --repeats <n>, --keep-baseline)`);
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
