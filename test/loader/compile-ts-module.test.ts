import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileTsModule } from "../../core/loader/compile-ts-module.js";
import { defaultCacheDir } from "../../core/loader/module-cache-dir.js";
import { FIXTURES, MODULES, rejection } from "./support.js";

const run = promisify(execFile);

async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `amplifier-${prefix}-`));
}

/** A private copy of the ts-module fixture, so a test may edit it. */
async function copyOfTsModule(): Promise<string> {
  const dir = await tempDir("ts-src");
  await cp(join(MODULES, "ts-module"), dir, { recursive: true });
  return dir;
}

describe("compileTsModule", () => {
  it("bundles the entry with its local imports into an importable ES module", async () => {
    const cacheDir = await tempDir("cache");
    const compiled = await compileTsModule(join(MODULES, "ts-module", "index.ts"), { cacheDir });
    expect(compiled.file.startsWith(cacheDir)).toBe(true);
    expect(compiled.cached).toBe(false);
    const code = await readFile(compiled.file, "utf8");
    expect(code).toContain("function greet("); // helper.ts inlined
    expect(code).toContain("//# sourceMappingURL=data:application/json;base64,");
  });

  it("answers from the cache while no input changed, and rebuilds under a new name when one did", async () => {
    const cacheDir = await tempDir("cache");
    const source = await copyOfTsModule();
    const entry = join(source, "index.ts");
    const first = await compileTsModule(entry, { cacheDir });
    const second = await compileTsModule(entry, { cacheDir });
    expect(second).toEqual({ ...first, cached: true });

    // A change in an imported file (not the entry) must be seen: the key covers all inputs.
    const helper = join(source, "helper.ts");
    await writeFile(helper, (await readFile(helper, "utf8")).replace("hello ${name}", "bonjour ${name}"));
    const third = await compileTsModule(entry, { cacheDir });
    expect(third.cached).toBe(false);
    expect(third.file).not.toBe(first.file); // new URL: Node's ESM cache cannot serve the old code
    expect(await readFile(third.file, "utf8")).toContain("bonjour");
  });

  it("keeps package imports external, as file: URLs that work from any cache folder", async () => {
    const source = await tempDir("ts-pkg");
    // A package next to the module, as in a user's project.
    await mkdir(join(source, "node_modules", "tiny-dep"), { recursive: true });
    await writeFile(join(source, "node_modules", "tiny-dep", "package.json"), JSON.stringify({ name: "tiny-dep", type: "module", exports: "./index.js" }));
    await writeFile(join(source, "node_modules", "tiny-dep", "index.js"), "export const answer = 42;\n");
    await writeFile(join(source, "mod.ts"), 'import { answer } from "tiny-dep";\nimport { join } from "node:path";\nexport const value: number = answer;\nexport const sep = join("a", "b");\n');
    const compiled = await compileTsModule(join(source, "mod.ts"), { cacheDir: await tempDir("elsewhere") });
    const code = await readFile(compiled.file, "utf8");
    expect(code).toContain(`from "file://${join(source, "node_modules", "tiny-dep", "index.js")}"`);
    expect(code).toMatch(/from "node:path"/);
    expect(code).not.toContain("export const answer = 42");
  });

  it("a JSON file a package exports is bundled, so the module imports (import attributes are not lost on an external file: URL)", async () => {
    const source = await tempDir("ts-json");
    await mkdir(join(source, "node_modules", "schemas-pkg"), { recursive: true });
    await writeFile(join(source, "node_modules", "schemas-pkg", "package.json"), JSON.stringify({ name: "schemas-pkg", type: "module", exports: { "./*": "./*" } }));
    await writeFile(join(source, "node_modules", "schemas-pkg", "config.schema.json"), JSON.stringify({ title: "Config", type: "object" }));
    await writeFile(join(source, "mod.ts"), 'import schema from "schemas-pkg/config.schema.json" with { type: "json" };\nexport const title: string = schema.title;\n');
    const compiled = await compileTsModule(join(source, "mod.ts"), { cacheDir: await tempDir("json-cache") });
    // Plain Node (not vitest, which would load JSON without the attribute), as a user's process does.
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(compiled.url)}); console.log(m.title);`]);
    expect(stdout.trim()).toBe("Config");
  });

  it("a syntax error: MODULE_COMPILE_FAILED with file, line and column", async () => {
    const source = await tempDir("ts-broken");
    await writeFile(join(source, "broken.ts"), "export function mount( {\n");
    const cacheDir = await tempDir("cache");
    const error = await rejection(() => compileTsModule(join(source, "broken.ts"), { cacheDir }), "MODULE_COMPILE_FAILED");
    expect(error.details.file).toBe(join(source, "broken.ts"));
    expect(error.message).toMatch(/broken\.ts:2:1: /);
  });

  it("stack traces of a compiled module point at the .ts file and line (Node's source maps)", async () => {
    const cacheDir = await tempDir("cache");
    const driver = await compileTsModule(join(FIXTURES, "stack-trace-driver.ts"), { cacheDir });
    const { stdout } = await run(process.execPath, [driver.file, join(MODULES, "ts-module", "index.ts"), cacheDir], { cwd: FIXTURES });
    expect(stdout).toContain("exploded: asked to fail");
    const [, thrownAt, calledFrom] = stdout.split("\n");
    expect(thrownAt).toContain(`${join(MODULES, "ts-module", "helper.ts")}:11:`);
    expect(calledFrom).toContain(`${join(MODULES, "ts-module", "index.ts")}:21:`);
  });
});

describe("defaultCacheDir", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is node_modules/.cache/amplifier-ts of the nearest package with a node_modules folder", async () => {
    const project = await tempDir("project");
    await writeFile(join(project, "package.json"), "{}");
    await mkdir(join(project, "node_modules"));
    await mkdir(join(project, "src", "deep"), { recursive: true });
    expect(await defaultCacheDir(join(project, "src", "deep"))).toBe(join(project, "node_modules", ".cache", "amplifier-ts"));
  });

  it("without a package: the user's cache folder (XDG_CACHE_HOME, else ~/.cache), made 0700; AMPLIFIER_TS_CACHE_DIR overrides both", async () => {
    const bare = await tempDir("bare");
    await writeFile(join(bare, "package.json"), "{}"); // a package without node_modules
    vi.stubEnv("XDG_CACHE_HOME", join(bare, "xdg"));
    expect(await defaultCacheDir(bare)).toBe(join(bare, "xdg", "amplifier-ts"));
    expect((await stat(join(bare, "xdg", "amplifier-ts"))).mode & 0o777).toBe(0o700);
    vi.stubEnv("XDG_CACHE_HOME", "");
    vi.stubEnv("HOME", join(bare, "home"));
    expect(await defaultCacheDir(bare)).toBe(join(bare, "home", ".cache", "amplifier-ts"));
    vi.stubEnv("AMPLIFIER_TS_CACHE_DIR", join(bare, "custom"));
    expect(await defaultCacheDir(bare)).toBe(join(bare, "custom"));
  });
});
