/**
 * Runs stages (commands) one after the other, each whatever the previous one did, printing a line
 * before and after each and a summary at the end. Used by tools/run-tests.mjs (`npm test`).
 *
 * `runStages(stages, { cwd, env, log })` → `[{ name, code, seconds }]`: `code` is the exit code, 128
 * + the signal's number when the stage was killed, 127 when it could not be started. A stage with
 * `skip: "<why>"` is not run: it is reported as skipped, with the reason, and counts as passed.
 *
 * `vitestFilesOf(args, { cwd, env })`: how many test files a `vitest run …` stage would run with
 * these arguments (filters included), asked of `vitest list --filesOnly`; undefined when that could
 * not be told. run-tests.mjs skips a vitest stage whose files none of the user's filters match.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

export async function runStages(stages, { cwd, env = process.env, log = console.log } = {}) {
  const results = [];
  for (const stage of stages) {
    if (stage.skip !== undefined) {
      results.push({ name: stage.name, code: 0, seconds: 0, skipped: stage.skip });
      log(`\n== stage ${stage.name}: skipped, ${stage.skip}`);
      continue;
    }
    log(`\n== stage ${stage.name}: ${[stage.command, ...stage.args].join(" ")}`);
    const started = Date.now();
    const code = await run(stage.command, stage.args, { cwd, env, log });
    const seconds = (Date.now() - started) / 1000;
    results.push({ name: stage.name, code, seconds });
    log(`== stage ${stage.name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s`);
  }
  log("\n== test stages");
  for (const result of results) {
    if (result.skipped !== undefined) log(`   skip  ${result.name.padEnd(7)}            ${result.skipped}`);
    else log(`   ${result.code === 0 ? "pass" : "FAIL"}  ${result.name.padEnd(7)} ${result.seconds.toFixed(1).padStart(7)} s${result.code === 0 ? "" : `  (exit ${result.code})`}`);
  }
  const failed = results.filter((result) => result.code !== 0);
  log(failed.length === 0 ? "== all stages passed" : `== ${failed.length} of ${results.length} stages failed: ${failed.map((r) => r.name).join(", ")}`);
  return results;
}

export function vitestFilesOf(args, { cwd, env = process.env } = {}) {
  // The list goes to a file: on a pipe, `vitest list --json` may print nothing at all.
  const folder = mkdtempSync(join(tmpdir(), "amplifier-run-tests-"));
  try {
    const out = join(folder, "files.json");
    const listArgs = ["list", "--filesOnly", `--json=${out}`, ...(args[0] === "run" ? args.slice(1) : args)];
    const listed = spawnSync("vitest", listArgs, { cwd, env, stdio: "ignore", timeout: 120_000 });
    if (listed.status !== 0) return undefined;
    const files = JSON.parse(readFileSync(out, "utf8"));
    return Array.isArray(files) ? files.length : undefined;
  } catch {
    return undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// ---- private helpers ----

/** One command with inherited output; Ctrl-C and SIGTERM reach it (and the stages after it still run). */
function run(command, args, { cwd, env, log }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: "inherit" });
    const forward = (signal) => child.kill(signal);
    process.on("SIGINT", forward).on("SIGTERM", forward);
    const done = (code) => {
      process.off("SIGINT", forward).off("SIGTERM", forward);
      resolve(code);
    };
    child.on("error", (error) => {
      log(`run-tests: could not start ${command}: ${error.message}`);
      done(127);
    });
    child.on("exit", (code, signal) => done(code ?? 128 + (constants.signals[signal] ?? 0)));
  });
}
