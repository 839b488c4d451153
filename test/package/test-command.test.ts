import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./workspace-manifests.js";

/**
 * `npm test` runs every stage (tools/run-tests.mjs → tools/test-stages.mjs) and reports each: a
 * failing stage never hides the ones after it, and the command fails at the end if any failed.
 */
function runStagesIn(stages: Array<{ name: string; command: string; args: string[]; skip?: string }>) {
  const script = `const { runStages } = await import(${JSON.stringify(join(ROOT, "tools", "test-stages.mjs"))}); const r = await runStages(${JSON.stringify(stages)}, { cwd: process.cwd() }); console.log("RESULT " + JSON.stringify(r));`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  return { out: run.stdout, results: JSON.parse(line!.slice("RESULT ".length)) as Array<{ name: string; code: number }> };
}

describe("the test command", () => {
  it("runs every stage after a failing one and reports each result", () => {
    const node = process.execPath;
    const { out, results } = runStagesIn([
      { name: "first", command: node, args: ["-e", "process.exit(3)"] },
      { name: "second", command: node, args: ["-e", "console.log('second ran')"] },
      { name: "killed", command: node, args: ["-e", "process.kill(process.pid, 'SIGTERM')"] },
      { name: "missing", command: join(ROOT, "no-such-binary"), args: [] },
    ]);
    expect(results.map((r) => [r.name, r.code])).toEqual([["first", 3], ["second", 0], ["killed", 143], ["missing", 127]]);
    expect(out).toContain("second ran");
    expect(out).toMatch(/FAIL\s+first/);
    expect(out).toMatch(/pass\s+second/);
    expect(out).toContain("3 of 4 stages failed: first, killed, missing");
  });

  it("reports a stage given a skip reason as skipped, without running it, and counts it as passed", () => {
    const node = process.execPath;
    const { out, results } = runStagesIn([
      { name: "faults", command: node, args: ["-e", "console.log('faults ran'); process.exit(3)"], skip: "no test file of this stage matches test/docs" },
      { name: "types", command: node, args: ["-e", "console.log('types ran')"] },
    ]);
    expect(results.map((r) => [r.name, r.code])).toEqual([["faults", 0], ["types", 0]]);
    expect(out).not.toContain("faults ran");
    expect(out).toContain("types ran");
    expect(out).toMatch(/skip\s+faults\s+no test file of this stage matches test\/docs/);
    expect(out).toContain("all stages passed");
  });

  // `npm test -- <filter>` with a filter that matches no fault test: the faults stage used to fail
  // with vitest's "No test files found" (exit 1), so every filtered run failed. The nested run skips
  // the build (this run made it) so the Inspector's bundle is not rewritten under other tests.
  it("with a filter, skips the vitest stage none of whose files match it, and fails a filter that matches no file at all", () => {
    const env = { ...process.env, AMPLIFIER_TEST_SKIP_BUILD: "1" };
    const runner = join(ROOT, "tools", "run-tests.mjs");
    const filtered = spawnSync(process.execPath, [runner, "test/package/engines.test.ts"], { cwd: ROOT, env, encoding: "utf8", timeout: 240_000 });
    expect(filtered.stdout).toMatch(/pass\s+tests/);
    expect(filtered.stdout).toMatch(/skip\s+faults\s+no test file of this stage matches test\/package\/engines\.test\.ts/);
    expect(filtered.stdout).toMatch(/skip\s+model\s+no test file of this stage matches test\/package\/engines\.test\.ts/);
    expect(filtered.stdout).toMatch(/pass\s+types/);
    expect(filtered.status).toBe(0);

    const mistyped = spawnSync(process.execPath, [runner, "test/no-such-test-file"], { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });
    expect(mistyped.stderr).toContain("no test file of tests or faults or model matches test/no-such-test-file");
    expect(mistyped.status).toBe(1);
  }, 300_000);

  it("is what package.json's test script runs, with the vitest suites, the fault suites, the model suites and the types", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.test).toBe("node tools/run-tests.mjs");
    const runner = readFileSync(join(ROOT, "tools", "run-tests.mjs"), "utf8");
    for (const stage of ['"vitest", args: ["run"]', '"vitest.faults.config.ts"', '"vitest.model.config.ts"', '"tsc", args: ["--noEmit"]']) expect(runner).toContain(stage);
  });

  it("exits non-zero with the stage names for an unknown --stage", () => {
    const run = spawnSync(process.execPath, [join(ROOT, "tools", "run-tests.mjs"), "--stage", "nope"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no stage named "nope"; expected one of tests, faults, model, types');
  });
});
