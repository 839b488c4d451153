#!/usr/bin/env node
/**
 * `npm run contracts [-- --check]`: one command for every emitted schema file, so CI has one check.
 *
 *   1. node contracts/generate.mjs: the contracts' JSON Schemas and generated types (reads only
 *      contracts/; contracts import nothing of ours);
 *   2. node tools/emit-module-schemas.mjs: each module's config schema, emitted into its package
 *      (listed under "amplifier.schemas" in its package.json), with its copy under
 *      contracts/schemas/modules/.
 *
 * Arguments go to step 1 (`--check`, `--root DIR`); step 2 gets `--check` and is skipped with
 * `--root` (a scratch copy of contracts/ has no modules). Exit status: 1 if either step fails.
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const steps = [[join(ROOT, "contracts", "generate.mjs"), ...args]];
if (!args.includes("--root")) steps.push([join(ROOT, "tools", "emit-module-schemas.mjs"), ...(args.includes("--check") ? ["--check"] : [])]);

let failed = false;
for (const step of steps) {
  const { status, error } = spawnSync(process.execPath, step, { stdio: "inherit" });
  if (error !== undefined || status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
