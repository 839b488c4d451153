import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspacePackages, workspaceClosure, type WorkspacePackage } from "./workspace-manifests.js";

/**
 * Every package as a user gets it: `npm pack` (the built dist/, after test/support/build-packages.ts),
 * installed into an EMPTY folder outside the repo with nothing but its own tarball and the
 * tarballs of the workspace packages it depends on (their versions are not on a registry yet);
 * other dependencies come from the npm registry or its cache. Then Node imports it.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const INSTALL_TIMEOUT_MS = 180_000;
const packages = workspacePackages();
let packDir = "";
const tarballs = new Map<string, string>();

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), "amplifier-packs-"));
  const out = execFileSync("npm", ["pack", "--workspaces", "--include-workspace-root", "--pack-destination", packDir, "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: INSTALL_TIMEOUT_MS,
  });
  for (const packed of JSON.parse(out) as Array<{ name: string; filename: string }>) tarballs.set(packed.name, join(packDir, packed.filename));
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (packDir !== "") rmSync(packDir, { recursive: true, force: true });
});

describe("npm pack of each package installs alone in an empty folder and imports", () => {
  it.each(packages.map((pkg) => [pkg.name, pkg] as const))("%s", (name, pkg: WorkspacePackage) => {
    const app = install([...workspaceClosure(name)]);
    try {
      const probe = `const m = await import(${JSON.stringify(name)}); console.log(JSON.stringify(Object.keys(m)));`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: app, encoding: "utf8", timeout: 60_000 });
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
      const keys = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[];
      expect(keys.length, `${name} exports nothing`).toBeGreaterThan(0);
      // The package ships its build and its manifest's entry, and no tests.
      expect(existsSync(join(app, "node_modules", name, pkg.manifest.main ?? "dist/index.js"))).toBe(true);
      expect(listFiles(join(app, "node_modules", name)).some((file) => file.endsWith(".test.ts") || file.endsWith(".test.js"))).toBe(false);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, INSTALL_TIMEOUT_MS);
});

describe("what a kernel user installs", () => {
  it("@amplifier-ts/core pulls none of pg, redis, esbuild or minisearch, and names the package a built-in needs", () => {
    const app = install(["@amplifier-ts/contracts", "@amplifier-ts/core"]);
    try {
      for (const heavy of ["pg", "redis", "esbuild", "minisearch", "@amplifier-ts/stores"]) expect(existsSync(join(app, "node_modules", heavy)), heavy).toBe(false);
      const probe = [
        "const { createSession } = await import('@amplifier-ts/core');",
        "try { await createSession({ session: { context: { module: 'context-simple', config: {} } } }); console.log('mounted'); }",
        "catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message, hint: error.details?.hint ?? '' })); }",
      ].join("\n");
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: app, encoding: "utf8", timeout: 60_000 });
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { code: string; message: string; hint: string };
      expect(result.code).toBe("MODULE_NOT_FOUND");
      expect(`${result.message} ${result.hint}`).toContain("@amplifier-ts/module-context-simple");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, INSTALL_TIMEOUT_MS);

  it("the umbrella amplifier-ts installs in one step: built-in names mount, old entry points import, an analysis runs in its thread, the CLI runs", () => {
    const app = install(["amplifier-ts", ...packages.filter((pkg) => pkg.name !== "@amplifier-ts/testing").map((pkg) => pkg.name)]);
    try {
      const probe = [
        "const { createSession } = await import('amplifier-ts');",
        "const session = await createSession({ session: { context: { module: 'context-persistent', config: { storagePath: 'sessions' } } } });",
        "await session.context.addMessage({ role: 'user', content: 'hello' });",
        "const window = await session.context.getMessagesForRequest(1000);",
        "await session.close();",
        "const entries = {};",
        "for (const name of ['context-simple', 'context-persistent', 'strategies', 'summarizers', 'search', 'stores']) entries[name] = Object.keys(await import('amplifier-ts/modules/' + name)).length;",
        // The Inspector's analysis thread loads the installed package's dist/ (its file found from import.meta.url).
        "const { analyzeSessionInWorker } = await import('amplifier-ts/replay');",
        "const analyzed = await analyzeSessionInWorker([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], { budget: 2000 });",
        "console.log(JSON.stringify({ modules: session.modules.map((m) => [m.module, m.status]), window: window.length, entries, analyzedTurns: analyzed.analysis.turns.length }));",
      ].join("\n");
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: app, encoding: "utf8", timeout: 60_000 });
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { modules: string[][]; window: number; entries: Record<string, number>; analyzedTurns: number };
      expect(result.modules).toEqual([["context-persistent", "mounted"]]);
      expect(result.analyzedTurns).toBe(1);
      expect(result.window).toBe(1);
      for (const [name, count] of Object.entries(result.entries)) expect(count, name).toBeGreaterThan(0);
      expect(readdirSync(join(app, "sessions")).some((file) => file.endsWith(".jsonl"))).toBe(true);
      const help = spawnSync(join(app, "node_modules", ".bin", "amplifier-ts"), ["--help"], { cwd: app, encoding: "utf8", timeout: 60_000 });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toContain("Usage: amplifier-ts");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, INSTALL_TIMEOUT_MS);
});

/** A fresh folder with the named packages installed from their tarballs. */
function install(names: string[]): string {
  const app = mkdtempSync(join(tmpdir(), "amplifier-app-"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true, type: "module" }));
  const files = names.map((name) => {
    const file = tarballs.get(name);
    if (file === undefined) throw new Error(`no tarball for ${name}`);
    return file;
  });
  const result = spawnSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...files], { cwd: app, encoding: "utf8", timeout: INSTALL_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`npm install ${names.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  // engines says Node 20: nothing installed may declare otherwise (npm warns EBADENGINE on this Node).
  expect(result.stderr, `npm install ${names.join(" ")} on Node ${process.versions.node}`).not.toContain("EBADENGINE");
  return app;
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
