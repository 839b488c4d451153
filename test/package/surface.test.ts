import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT, rootManifest, workspacePackages } from "./workspace-manifests.js";

/**
 * The public surface keeps its promise: every runtime name the packages exported on 2026-11-27
 * (surface-2026-11-27.json, written by tools/snapshot-surface.mjs) still imports — from the path it
 * had, or from the path surface-homes.json names for it — with a value of the same kind (a class
 * stays a class), and every such path is one README.md documents. And the umbrella's root stays
 * small: at most 40 runtime names. Checked the way a consumer gets it: Node resolving the built
 * dist/ through package.json "exports" (test/support/build-packages.ts builds before the run); the
 * type-only names the way TypeScript sees them, through the checker over the built .d.ts.
 */
const MAX_ROOT_RUNTIME_NAMES = 40;

interface Snapshot {
  commit: string;
  paths: Record<string, { runtime: Record<string, string>; types: string[] }>;
}
const snapshot = JSON.parse(readFileSync(join(ROOT, "test/package/surface-2026-11-27.json"), "utf8")) as Snapshot;
/** old path → name → the path it imports from now (only names that moved). */
const homes = JSON.parse(readFileSync(join(ROOT, "test/package/surface-homes.json"), "utf8")) as Record<string, Record<string, string>>;

/** Where each snapshot name must import from: its home, else the path it had. */
const expected: Array<{ from: string; name: string; kind: string; path: string }> = Object.entries(snapshot.paths).flatMap(([from, { runtime }]) =>
  Object.entries(runtime).map(([name, kind]) => ({ from, name, kind, path: homes[from]?.[name] ?? from })),
);

/** The import paths users may name: the umbrella's "exports" subpaths (code, not JSON) and each package root. */
function importablePaths(): Set<string> {
  const umbrella = Object.keys(rootManifest().exports ?? {})
    .filter((key) => key !== "./package.json" && !key.includes("*"))
    .map((key) => (key === "." ? "amplifier-ts" : `amplifier-ts/${key.slice(2)}`));
  return new Set([...umbrella, ...workspacePackages().map((pkg) => pkg.name)]);
}

/** The import paths README.md names in full: `amplifier-ts/window` (its "Import paths" table), `@amplifier-ts/window`. */
function documentedPaths(): Set<string> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const scoped = [...readme.matchAll(/@amplifier-ts\/[a-z0-9-]+/g)].map((match) => match[0]);
  const umbrella = [...readme.matchAll(/(?<![@\w/-])amplifier-ts(?:\/[a-z0-9-]+)+/g)].map((match) => match[0]);
  return new Set(["amplifier-ts", ...scoped, ...umbrella]);
}

/** Every path's runtime names and their kinds, as a fresh Node process imports them. */
function importAll(paths: string[]): Record<string, Record<string, string> | { error: string }> {
  const kindOf = pathToFileURL(join(ROOT, "test/package/value-kind.mjs")).href;
  const probe = [
    `const { kindOf } = await import(${JSON.stringify(kindOf)});`,
    `const out = {};`,
    `for (const path of ${JSON.stringify(paths)}) {`,
    `  try { const m = await import(path); out[path] = Object.fromEntries(Object.keys(m).map((k) => [k, kindOf(m[k])])); }`,
    `  catch (error) { out[path] = { error: String(error) }; }`,
    `}`,
    `console.log(JSON.stringify(out)); process.exit(0);`,
  ].join("\n");
  const stdout = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("the public surface", () => {
  const paths = [...new Set(expected.map((entry) => entry.path))].sort();
  const surface = importAll([...new Set([...paths, "amplifier-ts"])]);

  it("names, for every moved name, a path users may import and README.md documents", () => {
    const importable = importablePaths();
    const documented = documentedPaths();
    const targets = [...new Set(Object.values(homes).flatMap((names) => Object.values(names)))].sort();
    expect(targets.filter((path) => !importable.has(path)), "not an exports subpath nor a package root").toEqual([]);
    expect(targets.filter((path) => !documented.has(path)), "not documented in README.md").toEqual([]);
  });

  it(`still imports each of the ${expected.length} runtime names of ${snapshot.commit}, from its documented path, with the same kind`, () => {
    const missing = expected
      .filter(({ name, kind, path }) => {
        const names = surface[path];
        return names === undefined || "error" in names || names[name] !== kind;
      })
      .map(({ from, name, kind, path }) => `${name} (${kind}, was ${from}) at ${path}: ${whatIsThere(surface[path], name)}`);
    expect(missing).toEqual([]);
  });

  it("still imports each type-only name as a type, from its old path or its documented home", () => {
    const now = surfaceNow();
    const hasType = (path: string, name: string) => now[path] !== undefined && (now[path].types.includes(name) || name in now[path].runtime);
    const missing = Object.entries(snapshot.paths).flatMap(([from, { types }]) =>
      types.filter((name) => !hasType(homes[from]?.[name] ?? from, name)).map((name) => `type ${name} (was ${from}) at ${homes[from]?.[name] ?? from}`),
    );
    expect(missing).toEqual([]);
  }, 180_000);

  it(`exports at most ${MAX_ROOT_RUNTIME_NAMES} runtime names from the umbrella's root`, () => {
    const root = surface["amplifier-ts"]!;
    expect("error" in root ? root : {}).toEqual({});
    expect(Object.keys(root).length).toBeLessThanOrEqual(MAX_ROOT_RUNTIME_NAMES);
    // What the README's quickstart and orchestrator loop use stays at the root.
    for (const name of ["createSession", "Coordinator", "countTokens", "analyzeSession", "defineStrategy", "forEachContentPart", "callArguments", "startTurn", "runTool", "AmplifierError", "isAmplifierError"]) {
      expect(Object.keys(root), name).toContain(name);
    }
  });
});

/** Today's surface, from tools/snapshot-surface.mjs (the TypeScript checker over the built .d.ts). */
function surfaceNow(): Snapshot["paths"] {
  const dir = mkdtempSync(join(tmpdir(), "amplifier-surface-"));
  try {
    execFileSync(process.execPath, [join(ROOT, "tools/snapshot-surface.mjs"), join(dir, "now.json")], { cwd: ROOT, encoding: "utf8", timeout: 170_000 });
    return (JSON.parse(readFileSync(join(dir, "now.json"), "utf8")) as Snapshot).paths;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function whatIsThere(names: Record<string, string> | { error: string } | undefined, name: string): string {
  if (names === undefined) return "path not imported";
  if ("error" in names) return `import failed: ${names.error}`;
  return name in names ? `a ${names[name]}` : "not exported";
}
