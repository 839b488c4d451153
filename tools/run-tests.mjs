#!/usr/bin/env node
/**
 * `npm test`: every stage of the test command, run one after the other whatever the previous one
 * did, each reported with its result and time, and a non-zero exit at the end if any failed.
 *
 * | stage | command | why it is its own stage |
 * |---|---|---|
 * | tests | `vitest run` | the unit, integration, store and browser suites (vitest.config.ts) |
 * | fault tests | `vitest run --config vitest.faults.config.ts` | they kill private PostgreSQL / Redis servers: alone, one file at a time |
 * | model tests | `vitest run --config vitest.model.config.ts` | they load a real embedding model (seconds, hundreds of MB): alone, with long limits |
 * | types | `tsc --noEmit` | the tests, examples and documentation code compile under strict |
 *
 * A chain with `&&` stopped at the first failing stage and said nothing of the others: a timeout in
 * one test hid whether the faults and the types passed. Extra arguments go to both vitest stages
 * (`npm test -- -t "recall"`); `--stage <name>` runs one stage only. With arguments, a vitest stage
 * none of whose test files they match is skipped and says so (`npm test -- test/docs` has no fault
 * test: vitest alone would fail the faults stage with "No test files found"); when they match no
 * file of any vitest stage, the command fails at once — a mistyped filter never passes.
 *
 *   node tools/run-tests.mjs [--stage tests|faults|model|types] [vitest arguments…]
 */
import { runStages, vitestFilesOf } from "./test-stages.mjs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const STAGES = [
  { name: "tests", command: "vitest", args: ["run"] },
  { name: "faults", command: "vitest", args: ["run", "--config", "vitest.faults.config.ts"] },
  { name: "model", command: "vitest", args: ["run", "--config", "vitest.model.config.ts"] },
  { name: "types", command: "tsc", args: ["--noEmit"], takesArguments: false },
];

const { only, rest } = parseArguments(process.argv.slice(2));
const chosen = only === undefined ? STAGES : STAGES.filter((stage) => stage.name === only);
if (chosen.length === 0) {
  console.error(`run-tests: no stage named "${only}"; expected one of ${STAGES.map((s) => s.name).join(", ")}`);
  process.exit(2);
}
const binaries = `${ROOT}node_modules/.bin`;
const env = { ...process.env, PATH: `${binaries}:${process.env.PATH ?? ""}` };
const stages = chosen.map((stage) => ({ name: stage.name, command: stage.command, args: stage.takesArguments === false ? stage.args : [...stage.args, ...rest] }));
if (rest.length > 0) {
  const vitestStages = stages.filter((stage) => stage.command === "vitest");
  for (const stage of vitestStages) {
    if (vitestFilesOf(stage.args, { cwd: ROOT, env }) === 0) stage.skip = `no test file of this stage matches ${rest.join(" ")}`;
  }
  if (vitestStages.length > 0 && vitestStages.every((stage) => stage.skip !== undefined)) {
    console.error(`run-tests: no test file of ${vitestStages.map((stage) => stage.name).join(" or ")} matches ${rest.join(" ")}`);
    process.exit(1);
  }
}
const results = await runStages(stages, { cwd: ROOT, env, log: console.log });
process.exit(results.every((result) => result.code === 0) ? 0 : 1);

// ---- private helpers ----

function parseArguments(argv) {
  const rest = [];
  let only;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--stage") only = argv[++i];
    else if (argv[i].startsWith("--stage=")) only = argv[i].slice("--stage=".length);
    else rest.push(argv[i]);
  }
  return { only, rest };
}
