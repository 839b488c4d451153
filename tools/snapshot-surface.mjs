// Writes the public surface of the built packages to a JSON file: for every import path users may
// name (the umbrella amplifier-ts and each of its package.json "exports" subpaths, every
// @amplifier-ts/* workspace package and its subpaths), the runtime names with their kind and,
// from the built .d.ts through the TypeScript 7 API, the names that exist only as types.
// test/package/surface.test.ts reads such a snapshot to prove no name exported then is lost.
//
//   npm run build && node tools/snapshot-surface.mjs test/package/surface-2026-11-27.json
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { API } from "typescript/unstable/sync";
import { kindOf } from "../test/package/value-kind.mjs";

const root = resolve(import.meta.dirname, "..");
const out = process.argv[2];
if (!out) throw new Error("usage: node tools/snapshot-surface.mjs <out.json>");

const specifiers = importPaths();
const runtime = {};
for (const specifier of specifiers) {
  const namespace = await import(specifier);
  runtime[specifier] = Object.fromEntries(Object.keys(namespace).sort().map((name) => [name, kindOf(namespace[name])]));
}
const types = typeOnlyNames(specifiers, runtime);
const paths = Object.fromEntries(specifiers.map((specifier) => [specifier, { runtime: runtime[specifier], types: types[specifier] }]));
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
writeFileSync(out, `${JSON.stringify({ commit, paths }, null, 2)}\n`);
for (const specifier of specifiers) {
  console.log(`${specifier}: ${Object.keys(runtime[specifier]).length} runtime, ${types[specifier]?.length ?? "?"} type-only`);
}
process.exit(0); // imported modules (pools, timers) may hold the event loop open

function importPaths() {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const paths = subpaths(manifest.name, manifest.exports);
  const workspaces = execFileSync("npm", ["query", ".workspace"], { cwd: root, encoding: "utf8" });
  for (const workspace of JSON.parse(workspaces).sort((a, b) => a.name.localeCompare(b.name))) {
    if (workspace.private) continue;
    paths.push(...subpaths(workspace.name, workspace.exports));
  }
  return paths;
}

/** Code subpaths of an exports map: ".", "./x"; not package.json nor wildcard/JSON patterns. */
function subpaths(name, exports) {
  return Object.keys(exports ?? { ".": null })
    .filter((key) => key !== "./package.json" && !key.includes("*"))
    .map((key) => (key === "." ? name : `${name}/${key.slice(2)}`));
}

/** Names each path exports only as types (interfaces, type aliases), from the checker. */
function typeOnlyNames(specifiers, runtime) {
  mkdirSync(join(root, ".cache"), { recursive: true });
  const dir = mkdtempSync(join(root, ".cache", "surface-probe-"));
  try {
    const probe = specifiers.map((specifier, index) => `import * as m${index} from ${JSON.stringify(specifier)};\nexport { m${index} };`).join("\n");
    writeFileSync(join(dir, "probe.ts"), probe);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../../tsconfig.base.json", compilerOptions: { noEmit: true, composite: false, rootDir: "." }, include: ["probe.ts"] }));
    return checkerExports(join(dir, "tsconfig.json"), join(dir, "probe.ts"), specifiers, runtime);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkerExports(configFile, probeFile, specifiers, runtime) {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProjects: [configFile] }).getProject(configFile);
    const { checker } = project;
    const imports = project.program.getSourceFile(probeFile).statements.filter((statement) => statement.moduleSpecifier);
    const result = {};
    imports.forEach((statement, index) => {
      const specifier = specifiers[index];
      const moduleSymbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
      if (!moduleSymbol) throw new Error(`the checker cannot resolve ${specifier}`);
      const names = checker.getExportsOfModule(moduleSymbol).map((symbol) => symbol.name);
      result[specifier] = names.filter((name) => !(name in runtime[specifier])).sort();
    });
    return result;
  } finally {
    api.close();
  }
}
