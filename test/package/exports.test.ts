import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The published shape of amplifier-ts: what `import "amplifier-ts"` and
 * `import "amplifier-ts/testing"` get, checked the way a consumer gets it — Node's and
 * TypeScript's own resolution through package.json "exports" (self-reference), against the built
 * dist/ (test/support/build-packages.ts builds every package before the run).
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | { source: string; types: string; default: string }>;
  bin: Record<string, string>;
  files: string[];
  main: string;
  types: string;
};

/** Every file the manifest points at in dist/ (export targets, their types, the bin). */
const distEntries = (): string[] => [
  ...Object.values(manifest.exports).flatMap((target) => (typeof target === "string" ? [] : [target.default, target.types])),
  ...Object.values(manifest.bin),
].filter((file) => file.startsWith("./dist/"));

describe("package.json", () => {
  it("is an ES module package named amplifier-ts whose exports point at built JS with types next to it (source only under the 'source' condition)", () => {
    expect(manifest.name).toBe("amplifier-ts");
    for (const subpath of [".", "./testing", "./modules/context-simple", "./modules/context-persistent", "./modules/strategies", "./modules/summarizers", "./modules/search", "./modules/stores", "./stores"]) {
      const target = manifest.exports[subpath];
      expect(target, subpath).toMatchObject({ source: expect.stringMatching(/^\.\/src\/.*\.ts$/), types: expect.stringMatching(/^\.\/dist\/.*\.d\.ts$/), default: expect.stringMatching(/^\.\/dist\/.*\.js$/) });
      const { types, default: js } = target as { types: string; default: string };
      expect(types).toBe(js.replace(/\.js$/, ".d.ts"));
    }
    expect(manifest.main).toBe((manifest.exports["."] as { default: string }).default);
    expect(manifest.types).toBe((manifest.exports["."] as { types: string }).types);
    expect(manifest.files).toContain("dist");
  });
});

describe("after the build", () => {
  it("every export target, its .d.ts and the bin exist in dist/", () => {
    for (const file of distEntries()) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it('Node resolves "amplifier-ts" and "amplifier-ts/testing" through "exports" to dist JS, and the root imports', () => {
    const probe = [
      "const resolved = { root: import.meta.resolve('amplifier-ts'), testing: import.meta.resolve('amplifier-ts/testing'),",
      "  schema: import.meta.resolve('amplifier-ts/contracts/message.schema.json') };",
      "const root = await import('amplifier-ts');",
      "console.log(JSON.stringify({ resolved, exports: Object.keys(root) }));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const { resolved, exports } = JSON.parse(out.trim().split("\n").at(-1)!) as { resolved: Record<string, string>; exports: string[] };

    expect(resolved.root).toBe(pathToFileURL(join(ROOT, "dist/index.js")).href);
    expect(resolved.testing).toBe(pathToFileURL(join(ROOT, "dist/testing.js")).href);
    expect(resolved.schema).toBe(pathToFileURL(join(ROOT, "contracts/schemas/message.schema.json")).href);
    for (const url of [resolved.root!, resolved.testing!]) expect(existsSync(fileURLToPath(url).replace(/\.js$/, ".d.ts")), url).toBe(true);
    expect(exports).toEqual(expect.arrayContaining(["Coordinator", "createSession", "HookBus", "createError", "getTokenCounter"]));
  });

  it("the built-in modules are importable as amplifier-ts/modules/<name> (third parties register strategies, build stores)", () => {
    const probe = [
      "const strategies = await import('amplifier-ts/modules/strategies');",
      "const search = await import('amplifier-ts/modules/search');",
      "const stores = await import('amplifier-ts/modules/stores');",
      "const summarizers = await import('amplifier-ts/modules/summarizers');",
      "const simple = await import('amplifier-ts/modules/context-simple');",
      "const persistent = await import('amplifier-ts/modules/context-persistent');",
      "console.log(JSON.stringify({ strategies: Object.keys(strategies), search: Object.keys(search), stores: Object.keys(stores), summarizers: Object.keys(summarizers), simple: Object.keys(simple), persistent: Object.keys(persistent) }));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const keys = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, string[]>;
    expect(keys.strategies).toEqual(expect.arrayContaining(["defineStrategy", "strategyRegistry", "createPipeline", "RecallStrategy"]));
    expect(keys.stores).toEqual(expect.arrayContaining(["createHistoryStore", "MemoryStore", "JsonlStore"]));
    expect(keys.summarizers).toEqual(expect.arrayContaining(["ExtractiveSummarizer", "ProviderSummarizer"]));
    expect(keys.search?.length).toBeGreaterThan(0);
    for (const m of [keys.simple!, keys.persistent!]) expect(m).toEqual(expect.arrayContaining(["mount", "meta"]));
  });

  it("amplifier-ts/stores (built) builds every store type; amplifier-ts/testing carries the store suites", async () => {
    const stores = (await import(pathToFileURL(join(ROOT, "dist/stores.js")).href)) as typeof import("../../src/stores.js");
    const made = [stores.createBlobStore({ type: "file" }), stores.createGraphStore({ type: "postgres" }), stores.createTaskStore({ type: "memory" }), stores.createHistoryStore({ type: "memory" })];
    expect(made.map((s) => s.kind)).toEqual(["file", "postgres", "memory", "memory"]);
    for (const store of made.slice(0, 3)) await (store as { disconnect(): Promise<void> }).disconnect();
    const testing = (await import(pathToFileURL(join(ROOT, "dist/testing.js")).href)) as Record<string, unknown>;
    for (const suite of ["describeBlobStoreContract", "describeGraphStoreContract", "describeTaskStoreContract"]) expect(typeof testing[suite], suite).toBe("function");
  });

  it("amplifier-ts/testing exports describeContextManagerContract", async () => {
    const testing = (await import(pathToFileURL(join(ROOT, "dist/testing.js")).href)) as Record<string, unknown>;
    expect(typeof testing.describeContextManagerContract).toBe("function");
  });

  it("TypeScript (NodeNext) resolves both entry points to the dist .d.ts files and type-checks a consumer", () => {
    const dir = join(ROOT, ".cache", "exports-consumer");
    mkdirSync(dir, { recursive: true });
    const consumer = join(dir, "consumer.ts");
    writeFileSync(
      consumer,
      [
        'import { Coordinator, createSession, type Message, type ContextManager } from "amplifier-ts";',
        'import { describeContextManagerContract } from "amplifier-ts/testing";',
        'const message: Message = { role: "user", content: "hi" };',
        "export async function run(): Promise<ContextManager> {",
        '  const session = await createSession({ session: { context: { module: "context-simple", config: {} } } });',
        "  await session.context.addMessage(message);",
        "  return session.context;",
        "}",
        "export const coordinator = new Coordinator();",
        "export const suite: typeof describeContextManagerContract = describeContextManagerContract;",
        "",
      ].join("\n"),
    );
    const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
    const args = ["--ignoreConfig", "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--listFiles", consumer];
    const result = spawnSync(tsc, args, { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    const files = result.stdout.split("\n").map((line) => line.trim().replaceAll("\\", "/"));
    expect(files).toContain(join(ROOT, "dist/index.d.ts").replaceAll("\\", "/"));
    expect(files).toContain(join(ROOT, "dist/testing.d.ts").replaceAll("\\", "/"));
    // Only built declarations: no TypeScript source of any workspace package is read.
    expect(files.filter((file) => file.startsWith(ROOT.replaceAll("\\", "/")) && file.endsWith(".ts") && !file.endsWith(".d.ts") && !file.includes("/.cache/"))).toEqual([]);
  });

  it("the bin dist/cli/main.js starts with a shebang and runs", () => {
    expect(manifest.bin["amplifier-ts"]).toBe("dist/cli/main.js");
    const bin = join(ROOT, "dist/cli/main.js");
    expect(readFileSync(bin, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    const help = spawnSync(process.execPath, [bin, "--help"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("amplifier-ts");
  });

  it("npm pack ships every file the exports and the bin point at", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
    const shipped = new Set(pack!.files.map((f) => f.path));
    for (const file of [...distEntries(), "./contracts/schemas/message.schema.json", "./README.md"]) expect(shipped.has(file.slice(2)), file).toBe(true);
    expect([...shipped].some((path) => path.startsWith("test/") || path.endsWith(".test.js"))).toBe(false);
  });
});
