// Writes where each name of a surface snapshot (tools/snapshot-surface.mjs) can be imported today,
// for the names that are no longer at the path they had: { "<old path>": { "<name>": "<new path>" } }.
// A name still at its old path (a runtime name with the same kind, a type-only name as a type) has
// no entry. A moved name goes to the first import path of HOMES that exports it so: the most
// specific subpath first, the kernel and the package roots last. Types are read from a snapshot of
// today's surface. The output is checked in and reviewed; test/package/surface.test.ts proves it.
//
//   npm run build && node tools/snapshot-surface.mjs .cache/surface-now.json &&
//   node tools/surface-homes.mjs test/package/surface-2026-11-27.json .cache/surface-now.json test/package/surface-homes.json
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { kindOf } from "../test/package/value-kind.mjs";

const root = resolve(import.meta.dirname, "..");
const [snapshotFile, nowFile, out] = process.argv.slice(2);
if (!snapshotFile || !nowFile || !out) throw new Error("usage: node tools/surface-homes.mjs <snapshot.json> <now.json> <out.json>");
const snapshot = JSON.parse(readFileSync(snapshotFile, "utf8"));
const now = JSON.parse(readFileSync(nowFile, "utf8")).paths;
/** A type-only name is still importable as a type where today's surface has it as a type or a value (a class, a namespace). */
const hasType = (path, name) => now[path] !== undefined && (now[path].types.includes(name) || name in now[path].runtime);

// The umbrella's subpaths by how specific they are; then every workspace package root.
const PREFERRED = ["tokens", "memory", "replay", "cli", "window", "strategies", "stores", "server", "adapters", "testing", "contracts", "core"];
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const umbrella = Object.keys(manifest.exports).filter((key) => key !== "./package.json" && !key.includes("*")).map((key) => (key === "." ? "amplifier-ts" : `amplifier-ts/${key.slice(2)}`));
const packages = JSON.parse(execFileSync("npm", ["query", ".workspace"], { cwd: root, encoding: "utf8" })).filter((w) => !w.private).map((w) => w.name).sort();
const HOMES = [
  ...PREFERRED.map((name) => `amplifier-ts/${name}`).filter((path) => umbrella.includes(path)),
  ...umbrella.filter((path) => path !== "amplifier-ts" && !PREFERRED.includes(path.slice("amplifier-ts/".length))),
  ...packages,
];

const namespaces = new Map();
async function load(path) {
  if (!namespaces.has(path)) namespaces.set(path, await import(path).catch(() => undefined));
  return namespaces.get(path);
}

const homes = {};
const lost = [];
for (const [path, { runtime, types }] of Object.entries(snapshot.paths)) {
  for (const name of types) {
    if (hasType(path, name)) continue;
    const home = HOMES.find((candidate) => hasType(candidate, name));
    if (home === undefined) lost.push(`${path} ${name} (type)`);
    else (homes[path] ??= {})[name] = home;
  }
  const here = await load(path);
  for (const [name, kind] of Object.entries(runtime)) {
    if (here && name in here && kindOf(here[name]) === kind) continue;
    let home;
    for (const candidate of HOMES) {
      const namespace = await load(candidate);
      if (namespace && name in namespace && kindOf(namespace[name]) === kind) {
        home = candidate;
        break;
      }
    }
    if (home === undefined) lost.push(`${path} ${name} (${kind})`);
    else (homes[path] ??= {})[name] = home;
  }
}
writeFileSync(out, `${JSON.stringify(homes, null, 2)}\n`);
const moved = Object.values(homes).reduce((n, names) => n + Object.keys(names).length, 0);
console.log(`${moved} names moved; ${lost.length} found nowhere${lost.length ? `:\n  ${lost.join("\n  ")}` : ""}`);
process.exit(lost.length ? 1 : 0);
