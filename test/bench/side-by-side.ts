/**
 * `npm run bench -- --baseline <rev>`: the same scenarios for HEAD (this checkout) and a baseline
 * commit, alternately, in one run on one machine. The baseline is built in a temporary git
 * worktree (npm ci, build, its own bench bundle), so each side runs its own bench code against
 * its own packages; checks are matched by scenario id and label. Every scenario runs in a fresh
 * process per side and repeat (ABBA order: HEAD first on odd repeats, baseline first on even ones).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { compareScenario, comparisonTable, type Comparison } from "./compare.js";
import type { MachineInfo } from "./machine-info.js";
import { machineText, table } from "./report.js";
import type { Check } from "./scenario.js";

export interface SideBySideOptions {
  baseline: string;
  /** Scenario ids of HEAD's bench; those the baseline's bench does not know are skipped (said so). */
  ids: string[];
  quick: boolean;
  repeats: number;
  keepBaseline: boolean;
  out: string;
  entry: string;
  machine: MachineInfo;
  log(message: string): void;
}

interface Side {
  name: string;
  commit: string;
  dir: string;
  entry: string;
}

interface RunRecord {
  side: string;
  id: string;
  repeat: number;
  seconds: number;
  load: [number, number];
  checks?: Check[];
  error?: string;
}

const READY = ".bench-baseline-ready";

export async function runSideBySide(opts: SideBySideOptions): Promise<number> {
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const root = process.cwd();
  const baseCommit = git(root, "rev-parse", "--verify", `${opts.baseline}^{commit}`);
  const headCommit = git(root, "rev-parse", "HEAD");
  const dirty = git(root, "status", "--porcelain", "--untracked-files=no") !== "";
  const dir = join(tmpdir(), `amplifier-bench-baseline-${baseCommit.slice(0, 12)}`);
  const started = new Date();
  const loadStart = loadavg()[0] ?? 0;
  prepareBaseline(root, dir, baseCommit, opts.log);
  // A copy of this bundle beside it (same node_modules), so rebundling during a long run changes nothing.
  const headEntry = join(root, ".cache/bench", `side-by-side-head-${process.pid}.mjs`);
  copyFileSync(opts.entry, headEntry);
  const head: Side = { name: `HEAD ${headCommit.slice(0, 7)}${dirty ? "+" : ""}`, commit: headCommit, dir: root, entry: headEntry };
  const base: Side = { name: `baseline ${baseCommit.slice(0, 7)}`, commit: baseCommit, dir, entry: join(dir, ".cache/bench/main.mjs") };

  const baseIds = listIds(base);
  const ids = opts.ids.filter((id) => baseIds.includes(id));
  const skipped = opts.ids.filter((id) => !baseIds.includes(id));
  if (skipped.length) opts.log(`not in the baseline's bench, skipped: ${skipped.join(", ")}`);

  const records: RunRecord[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "amplifier-bench-sbs-"));
  try {
    for (let repeat = 1; repeat <= opts.repeats; repeat++) {
      for (const id of ids) {
        const order = repeat % 2 === 1 ? [head, base] : [base, head];
        for (const side of order) {
          opts.log(`repeat ${repeat}/${opts.repeats} · ${id} · ${side.name}`);
          const record = runOnce(side, id, repeat, opts.quick, scratch);
          records.push(record);
          // After every run, so a run cut short still leaves its figures so far.
          writeReport(false);
          opts.log(`  ${record.error ? `ERROR ${record.error.split("\n")[0]}` : `${record.checks?.length ?? 0} checks`} in ${record.seconds.toFixed(0)} s (load ${record.load[0].toFixed(2)} → ${record.load[1].toFixed(2)})`);
        }
      }
    }
  } finally {
    if (!opts.keepBaseline) removeBaseline(root, dir, opts.log);
    rmSync(scratch, { recursive: true, force: true });
    rmSync(headEntry, { force: true });
  }

  const markdown = writeReport(true);
  process.stdout.write(`${markdown}\n`);
  opts.log(`wrote ${relative(root, opts.out)}`);
  return records.some((r) => r.error) ? 1 : 0;

  function writeReport(done: boolean): string {
    const comparisons: Comparison[] = [];
    for (const id of ids) {
      const of = (side: Side) => records.filter((r) => r.side === side.name && r.id === id).sort((x, y) => x.repeat - y.repeat).map((r) => r.checks ?? []);
      comparisons.push(...compareScenario(id, of(base), of(head)));
    }
    const markdown = renderSideBySide({
      done,
      command: ["npm run bench --", ...process.argv.slice(2)].join(" "),
      started,
      durationS: (Date.now() - started.getTime()) / 1000,
      machine: opts.machine,
      load: [loadStart, loadavg()[0] ?? 0],
      head,
      base,
      repeats: opts.repeats,
      quick: opts.quick,
      ids,
      skipped,
      records,
      comparisons,
    });
    mkdirSync(resolve(opts.out, ".."), { recursive: true });
    writeFileSync(opts.out, `${markdown}\n`);
    writeFileSync(`${opts.out.replace(/\.md$/, "")}.json`, JSON.stringify({ head: head.commit, baseline: base.commit, records, comparisons }, null, 2));
    return markdown;
  }
}

/** A worktree of the baseline commit with its dependencies installed, built and its bench bundled (kept for reuse with --keep-baseline). */
function prepareBaseline(root: string, dir: string, commit: string, log: (m: string) => void): void {
  if (existsSync(join(dir, READY))) {
    log(`baseline ${commit.slice(0, 7)}: reusing ${dir}`);
    return;
  }
  if (!existsSync(dir)) {
    log(`baseline ${commit.slice(0, 7)}: git worktree add ${dir}`);
    sh(root, "git", ["worktree", "add", "--detach", dir, commit]);
  }
  log(`baseline ${commit.slice(0, 7)}: npm ci`);
  sh(dir, "npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
  log(`baseline ${commit.slice(0, 7)}: npm run build`);
  sh(dir, "npm", ["run", "build", "--silent"]);
  log(`baseline ${commit.slice(0, 7)}: bundling its bench`);
  sh(dir, "npx", ["esbuild", "test/bench/main.ts", "--bundle", "--platform=node", "--format=esm", "--packages=external", "--outfile=.cache/bench/main.mjs", "--log-level=warning"]);
  writeFileSync(join(dir, READY), `${commit}\n`);
}

function removeBaseline(root: string, dir: string, log: (m: string) => void): void {
  if (!existsSync(dir)) return;
  log(`removing the baseline worktree ${dir} (--keep-baseline keeps it for the next run)`);
  const r = spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: root, stdio: "ignore" });
  if (r.status !== 0) rmSync(dir, { recursive: true, force: true });
  spawnSync("git", ["worktree", "prune"], { cwd: root, stdio: "ignore" });
}

function sh(cwd: string, cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd} (exit ${r.status})`);
}

function listIds(side: Side): string[] {
  const r = spawnSync(process.execPath, [side.entry, "--list"], { cwd: side.dir, encoding: "utf8" });
  return (r.stdout ?? "").split("\n").map((line) => line.split("\t")[0]!.trim()).filter(Boolean);
}

/** One scenario on one side in a fresh process; its checks come from that tree's .cache/bench/results.json. */
function runOnce(side: Side, id: string, repeat: number, quick: boolean, scratch: string): RunRecord {
  const out = join(scratch, `${side.name.split(" ")[0]}-${id}-${repeat}.md`);
  // The baseline's bench (any version) writes .cache/bench/results.json in its worktree, which
  // only this runner uses; this checkout's bench writes where BENCH_RESULTS says.
  const resultsFile = side.dir === process.cwd() ? join(scratch, `head-${id}-${repeat}.json`) : join(side.dir, ".cache/bench/results.json");
  rmSync(resultsFile, { force: true });
  const load0 = loadavg()[0] ?? 0;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--expose-gc", side.entry, "--only", id, ...(quick ? ["--quick"] : []), "--out", out], {
    cwd: side.dir,
    env: { ...process.env, BENCH_RESULTS: resultsFile },
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const record: RunRecord = { side: side.name, id, repeat, seconds: (performance.now() - t0) / 1000, load: [load0, loadavg()[0] ?? 0] };
  try {
    const results = JSON.parse(readFileSync(resultsFile, "utf8")) as { results: { id: string; error?: string; checks?: Check[] }[] };
    const mine = results.results.find((x) => x.id === id);
    if (mine?.checks) record.checks = mine.checks;
    if (mine?.error) record.error = mine.error;
  } catch {
    record.error = `no results (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").slice(-3).join(" / ")}`;
  }
  return record;
}

export interface SideBySideReport {
  /** False while the runs go on (the file is rewritten after each run). */
  done: boolean;
  command: string;
  started: Date;
  durationS: number;
  machine: MachineInfo;
  load: [number, number];
  head: Pick<Side, "name" | "commit">;
  base: Pick<Side, "name" | "commit">;
  repeats: number;
  quick: boolean;
  ids: string[];
  skipped: string[];
  records: RunRecord[];
  comparisons: Comparison[];
}

export function renderSideBySide(r: SideBySideReport): string {
  const out: string[] = [];
  const count = (v: string) => r.comparisons.filter((c) => c.verdict === v).length;
  out.push(`# Bench side by side: ${r.head.name} vs ${r.base.name}`, "");
  if (!r.done) out.push(`> In progress: ${r.records.length} of ${r.ids.length * r.repeats * 2} runs done.`, "");
  out.push(table({
    columns: ["", ""],
    rows: [
      ["Command", `\`${r.command}\``],
      ["Date", r.started.toISOString()],
      ["Duration", `${r.durationS.toFixed(0)} s`],
      ["HEAD", `\`${r.head.commit}\``],
      ["Baseline", `\`${r.base.commit}\` (built in a temporary git worktree: npm ci, npm run build, its own bench)`],
      ["Scenarios", `${r.ids.join(", ")}${r.skipped.length ? ` (not in the baseline's bench: ${r.skipped.join(", ")})` : ""}`],
      ["Mode", `${r.quick ? "quick" : "full"}; ${r.repeats} repeats per side, alternating (ABBA), each scenario in a fresh process`],
      ["Machine", machineText(r.machine)],
      ["Load average (1 min) at start / end", `${r.load[0].toFixed(2)} / ${r.load[1].toFixed(2)}`],
    ],
  }));
  out.push("");
  out.push(
    "Rule: a figure differs **beyond noise** when the ranges of its repeats on the two sides do not overlap " +
      "(every HEAD repeat worse — or better — than every baseline repeat); which way is better comes from the check's target, " +
      "else from its unit (times lower, rates higher). noise = (max − min) / median over the repeats, the noisier side.",
    "",
  );
  out.push(`**${count("worse beyond noise")} worse beyond noise, ${count("better beyond noise")} better beyond noise, ${count("within noise")} within noise** (${r.comparisons.length} figures compared; the rest have no direction or are missing on a side).`, "");
  for (const id of r.ids) {
    const rows = r.comparisons.filter((c) => c.scenario === id);
    out.push(`## ${id}`, "");
    const runs = r.records.filter((x) => x.id === id);
    out.push(`Runs: ${runs.map((x) => `${x.side.split(" ")[0]} #${x.repeat} ${x.seconds.toFixed(0)} s (load ${x.load[0].toFixed(1)}→${x.load[1].toFixed(1)})${x.error ? " ERROR" : ""}`).join(" · ")}`, "");
    for (const x of runs.filter((y) => y.error)) out.push(`- ${x.side} repeat ${x.repeat}: ${x.error!.split("\n")[0]}`);
    if (rows.length) out.push(table(comparisonTable(rows, { baseline: r.base.name, head: r.head.name })), "");
  }
  return out.join("\n");
}
