#!/usr/bin/env node
/**
 * `npm run check:layers`: the layering rules of .dependency-cruiser.cjs over every package's
 * TypeScript source, type-only imports included.
 *
 * dependency-cruiser reads TypeScript only through TypeScript < 7 (this repository builds with 7,
 * which has no JavaScript API). So each source file is first turned into JavaScript by babel with
 * tools/layers.babel.cjs — which keeps `import type` as a plain import — into a mirror of the tree
 * under .cache/layers/ (same paths, .js instead of .ts, the package manifests beside them and a
 * link to node_modules), and dependency-cruiser checks the mirror. Exit code: dependency-cruiser's
 * (non-zero on any violation).
 *
 *   node tools/check-layers.mjs [rootDir]     rootDir defaults to the repository (tests pass a small house)
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const babel = require("@babel/core");
const babelConfig = require("./layers.babel.cjs");

const TOOLS = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(TOOLS, ".."));
const HOMES = ["contracts", "core", "testing", "modules", "hooks", "src", "examples"];
// Not package code: builds, tests, the third-party example (its own package), and the contracts'
// generator scripts (contracts/*.mjs run at development time; they are not shipped).
const SKIP = /(^|\/)(node_modules|dist|third-party-plugin|test)(\/|$)|\.test\.ts$|\.test-d\.ts$|^contracts\/[^/]+\.mjs$/;
const mirror = join(root, ".cache", "layers");

rmSync(mirror, { recursive: true, force: true });
mkdirSync(mirror, { recursive: true });
let files = 0;
for (const home of HOMES) {
  const dir = join(root, home);
  if (!existsSync(dir)) continue;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const path = relative(root, file);
    if (SKIP.test(path)) continue;
    if (entry.name === "package.json" || entry.name.endsWith(".json")) {
      mkdirSync(dirname(join(mirror, path)), { recursive: true });
      copyFileSync(file, join(mirror, path));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      const { code } = babel.transformSync(readFileSync(file, "utf8"), { ...babelConfig, filename: file });
      mkdirSync(dirname(join(mirror, path)), { recursive: true });
      writeFileSync(join(mirror, path.replace(/\.ts$/, ".js")), code);
      files += 1;
    } else if (/\.(js|mjs)$/.test(entry.name)) {
      mkdirSync(dirname(join(mirror, path)), { recursive: true });
      copyFileSync(file, join(mirror, path));
      files += 1;
    }
  }
}
copyFileSync(join(root, "package.json"), join(mirror, "package.json"));
if (existsSync(join(root, "node_modules"))) symlinkSync(join(root, "node_modules"), join(mirror, "node_modules"), "dir");
if (files === 0) {
  console.error(`check-layers: no TypeScript or JavaScript source under ${root} (${HOMES.join(", ")})`);
  process.exit(2);
}

const depcruise = join(TOOLS, "..", "node_modules", ".bin", "depcruise");
const config = join(root, ".dependency-cruiser.cjs");
const run = spawnSync(depcruise, ["--config", config, "--output-type", "err-long", "."], { cwd: mirror, stdio: "inherit" });
process.exit(run.status ?? 2);
