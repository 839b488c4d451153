#!/usr/bin/env node
/**
 * `npm run pack`: every package of the repository as the tarball `npm publish` would upload, in
 * .packs/ (emptied first), after `npm run build`. Until the packages are on the npm registry, an app
 * installs them from there — the umbrella with everything it depends on:
 *
 *   npm i <clone>/.packs/*.tgz
 *
 * or one package with the tarballs of the workspace packages it needs (each package's README lists
 * them). Prints the files written and that command.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = join(ROOT, ".packs");

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT);
const packed = JSON.parse(
  execFileSync("npm", ["pack", "--workspaces", "--include-workspace-root", "--pack-destination", OUT, "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
);
for (const entry of packed) console.log(`${entry.filename.padEnd(56)} ${entry.name}@${entry.version}  ${(entry.size / 1024).toFixed(1)} kB, ${entry.entryCount} files`);
console.log(`\n${packed.length} packages in ${OUT}\ninstall in an app:  npm i ${OUT}/*.tgz`);
