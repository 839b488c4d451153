/**
 * Runs stages (commands) one after the other, each whatever the previous one did, printing a line
 * before and after each and a summary at the end. Used by tools/run-tests.mjs (`npm test`).
 *
 * `runStages(stages, { cwd, env, log })` → `[{ name, code, seconds }]`: `code` is the exit code, 128
 * + the signal's number when the stage was killed, 127 when it could not be started.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";

export async function runStages(stages, { cwd, env = process.env, log = console.log } = {}) {
  const results = [];
  for (const stage of stages) {
    log(`\n== stage ${stage.name}: ${[stage.command, ...stage.args].join(" ")}`);
    const started = Date.now();
    const code = await run(stage.command, stage.args, { cwd, env, log });
    const seconds = (Date.now() - started) / 1000;
    results.push({ name: stage.name, code, seconds });
    log(`== stage ${stage.name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s`);
  }
  log("\n== test stages");
  for (const result of results) log(`   ${result.code === 0 ? "pass" : "FAIL"}  ${result.name.padEnd(7)} ${result.seconds.toFixed(1).padStart(7)} s${result.code === 0 ? "" : `  (exit ${result.code})`}`);
  const failed = results.filter((result) => result.code !== 0);
  log(failed.length === 0 ? "== all stages passed" : `== ${failed.length} of ${results.length} stages failed: ${failed.map((r) => r.name).join(", ")}`);
  return results;
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
