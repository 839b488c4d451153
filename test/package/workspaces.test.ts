import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_MODULES, SEPARATELY_INSTALLED_MODULES } from "../../src/session/builtin-modules.js";
import { externalClosure, ROOT, rootManifest, workspaceClosure, workspacePackages } from "./workspace-manifests.js";

/**
 * The house as its manifests declare it: one package per home (contracts, core, testing,
 * modules/*, hooks/*), the direction contracts ← core ← modules/hooks, and the heavy drivers
 * only where they are needed. The imports themselves are held to these manifests by
 * dependency-cruiser (.dependency-cruiser.cjs, `npm run check:layers` → tools/check-layers.mjs), whose rules are checked
 * at the bottom of this file on a small house with one back-running import each.
 */
const packages = workspacePackages();
const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));

describe("workspace packages", () => {
  it("are the card's homes: contracts, core, testing and one package per module folder", () => {
    const dirs = packages.map((pkg) => pkg.dir);
    expect(dirs).toEqual(expect.arrayContaining(["contracts", "core", "testing", "modules/window", "modules/context-simple", "modules/context-persistent", "modules/stores", "modules/store-postgres", "modules/store-redis"]));
    expect(byName.get("@amplifier-ts/contracts")?.dir).toBe("contracts");
    expect(byName.get("@amplifier-ts/core")?.dir).toBe("core");
    expect(byName.get("@amplifier-ts/testing")?.dir).toBe("testing");
  });

  it.each(packages.map((pkg) => [pkg.name, pkg] as const))("%s: an ES module package whose entry is built JS with types, source only under the 'source' condition", (name, pkg) => {
    expect(name).toMatch(/^@amplifier-ts\/[a-z0-9-]+$/);
    expect(pkg.manifest.type).toBe("module");
    expect(pkg.manifest.exports?.["."]).toEqual({ source: "./index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" });
    expect(pkg.manifest.files).toContain("dist");
    expect(pkg.manifest.devDependencies, "workspace packages keep dev tools at the root").toBeUndefined();
  });

  it.each(packages.map((pkg) => [pkg.name, pkg] as const))("%s: its tsconfig references exactly the workspace packages it depends on (tsc -b builds against their declarations)", (_name, pkg) => {
    const dependsOn = Object.keys(pkg.manifest.dependencies ?? {}).filter((dep) => byName.has(dep)).map((dep) => byName.get(dep)!.dir).sort();
    const references = (pkg.tsconfig.references ?? []).map((ref) => relative(ROOT, resolve(ROOT, pkg.dir, ref.path))).sort();
    expect(references).toEqual(dependsOn);
  });

  it("the declared dependency graph has no cycle, and runs contracts ← core ← modules/hooks", () => {
    const layer = (dir: string): number => (dir === "contracts" ? 0 : dir === "core" ? 1 : dir === "testing" ? 2 : 2);
    for (const pkg of packages) {
      const closure = workspaceClosure(pkg.name);
      for (const dep of closure) {
        if (dep === pkg.name) continue;
        expect(workspaceClosure(dep).has(pkg.name), `${pkg.name} ⇄ ${dep}`).toBe(false);
        expect(layer(byName.get(dep)!.dir), `${pkg.name} → ${dep}`).toBeLessThanOrEqual(layer(pkg.dir));
      }
    }
    expect([...workspaceClosure("@amplifier-ts/contracts")]).toEqual(["@amplifier-ts/contracts"]);
    expect([...workspaceClosure("@amplifier-ts/core")].sort()).toEqual(["@amplifier-ts/contracts", "@amplifier-ts/core"]);
  });

  it("@amplifier-ts/core and @amplifier-ts/contracts pull none of pg, redis, esbuild or minisearch, directly or through other packages", () => {
    for (const name of ["@amplifier-ts/contracts", "@amplifier-ts/core"]) {
      const pulled = externalClosure(name);
      for (const heavy of ["pg", "redis", "esbuild", "minisearch"]) expect(pulled.has(heavy), `${name} pulls ${heavy}`).toBe(false);
    }
    // esbuild is an optional peer of core: only loading a .ts module by path needs it.
    expect(byName.get("@amplifier-ts/core")!.manifest.peerDependenciesMeta?.esbuild?.optional).toBe(true);
  });

  it("a JSONL user pulls neither pg nor redis; each driver lives in its own package", () => {
    const persistent = externalClosure("@amplifier-ts/module-context-persistent");
    expect(persistent.has("pg")).toBe(false);
    expect(persistent.has("redis")).toBe(false);
    expect(externalClosure("@amplifier-ts/store-postgres").has("pg")).toBe(true);
    expect(externalClosure("@amplifier-ts/store-redis").has("redis")).toBe(true);
    expect(externalClosure("@amplifier-ts/module-memory-tool").has("pg"), "a file-backed memory tool pulls no pg (postgres: the optional peer agent-stores-postgres)").toBe(false);
  });

  it("@amplifier-ts/testing declares vitest and fast-check as peer dependencies, not dependencies", () => {
    const testing = byName.get("@amplifier-ts/testing")!.manifest;
    expect(Object.keys(testing.peerDependencies ?? {})).toEqual(expect.arrayContaining(["vitest", "fast-check"]));
    expect(testing.dependencies?.vitest).toBeUndefined();
    expect(testing.dependencies?.["fast-check"]).toBeUndefined();
  });

  it("every built-in name stands for a workspace package the umbrella amplifier-ts depends on", () => {
    const umbrella = rootManifest();
    for (const [name, packageName] of Object.entries(BUILTIN_MODULES)) {
      expect(byName.has(packageName), name).toBe(true);
      expect(umbrella.dependencies?.[packageName], name).toBeDefined();
    }
  });

  it("a separately installed module (embedder-local) is a workspace package the umbrella does not depend on: TensorFlow.js reaches only who installs it", () => {
    const umbrella = rootManifest();
    for (const [name, packageName] of Object.entries(SEPARATELY_INSTALLED_MODULES)) {
      expect(byName.has(packageName), name).toBe(true);
      expect(umbrella.dependencies?.[packageName], name).toBeUndefined();
      expect(packageName, name).toBe(`@amplifier-ts/module-${name}`); // found by the package convention, no alias needed
    }
    expect(externalClosure("@amplifier-ts/module-embedder-local").has("@energetic-ai/core")).toBe(true);
    for (const pkg of packages) {
      if (pkg.name === "@amplifier-ts/module-embedder-local") continue;
      expect(externalClosure(pkg.name).has("@energetic-ai/core"), pkg.name).toBe(false);
    }
  });
});

describe("the layering check (dependency-cruiser) fails on a back-running import", () => {
  const house = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "amplifier-layers-"));
    cpSync(join(ROOT, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "house", type: "module", private: true }));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    return dir;
  };
  const cruise = (dir: string): { status: number | null; output: string } => {
    const run = spawnSync(process.execPath, [join(ROOT, "tools", "check-layers.mjs"), dir], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };
  const base = {
    "contracts/index.ts": "export const contract = 1;\n",
    "core/index.ts": "export const kernel = 1;\n",
    "modules/window/index.ts": "export const window = 2;\n",
  };

  it.each([
    ["contracts → core", { "contracts/leak.ts": 'import { kernel } from "../core/index.js";\nexport const leak = kernel;\n' }, "contracts-import-nothing-of-ours"],
    ["core → a module", { "core/leak.ts": 'import { window } from "../modules/window/index.js";\nexport const leak = window;\n' }, "core-is-mechanism"],
    ["core → a module, type only", { "core/leak.ts": 'import type { Window } from "../modules/window/index.js";\nexport type Leak = Window;\n', "modules/window/index.ts": "export interface Window { size: number }\n" }, "core-is-mechanism"],
    ["tokens → core", { "modules/tokens/leak.ts": 'import { kernel } from "../../core/index.js";\nexport const leak = kernel;\n' }, "tokens-imports-only-contracts"],
    ["a module → another module's file by path", { "modules/search/index.ts": 'import { window } from "../window/index.js";\nexport const leak = window;\n' }, "module-packages-meet-by-name"],
  ])("%s", (_what, leak, rule) => {
    const dir = house({ ...base, ...leak });
    try {
      const { status, output } = cruise(dir);
      expect(status, output).not.toBe(0);
      expect(output).toContain(rule);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("and passes the same small house without a leak", () => {
    const dir = house(base);
    try {
      const { status, output } = cruise(dir);
      expect(status, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("and the repository itself passes it", () => {
    const run = spawnSync("npm", ["run", "-s", "check:layers"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  });
});
