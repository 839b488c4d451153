import { createHash } from "node:crypto";
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileTsModule } from "../../core/loader/compile-ts-module.js";
import { loadModule } from "../../core/loader/load-module.js";
import { defaultCacheDir } from "../../core/loader/module-cache-dir.js";
import { rejection } from "./support.js";

// Issue 25 item 8: a compiled .ts module is imported, i.e. run, from the cache; whoever can write
// that folder runs code in every process that loads the module. Each case below was accepted before.

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;

async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `amplifier-cache-safety-${prefix}-`));
}

/** A module whose mount leaves a trace in `marker`, and the folder it lives in. */
async function tracedModule(): Promise<{ dir: string; entry: string; marker: string }> {
  const dir = await tempDir("src");
  const marker = join(dir, "PLANTED");
  const entry = join(dir, "hook.ts");
  await writeFile(entry, "export function mount(_coordinator: unknown, _config: unknown): string { return \"genuine\"; }\n");
  return { dir, entry, marker };
}

function plantedCode(marker: string): string {
  return `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "ran"); export function mount() { return "planted"; }\n`;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the cache folder must be private to the user", () => {
  it("a pre-created world-writable folder is refused: MODULE_CACHE_UNSAFE, nothing written into it", async () => {
    const { entry } = await tracedModule();
    const shared = join(await tempDir("shared"), "amplifier-ts-cache");
    await mkdir(shared);
    await chmod(shared, 0o777);
    const error = await rejection(() => compileTsModule(entry, { cacheDir: shared }), "MODULE_CACHE_UNSAFE");
    expect(error.message).toContain("mode 0777");
    expect(error.details.file).toBe(shared);
    expect(error.details.hint).toMatch(/AMPLIFIER_TS_CACHE_DIR/);
    vi.stubEnv("AMPLIFIER_TS_CACHE_DIR", shared);
    await rejection(() => compileTsModule(entry), "MODULE_CACHE_UNSAFE");
    await expect(readFile(join(shared, "x")).catch(() => "none")).resolves.toBe("none");
  });

  it("a symbolic link is refused, even to a private folder (it could be re-pointed)", async () => {
    const { entry } = await tracedModule();
    const root = await tempDir("link");
    await mkdir(join(root, "real"), { mode: 0o700 });
    await symlink(join(root, "real"), join(root, "cache"));
    const error = await rejection(() => compileTsModule(entry, { cacheDir: join(root, "cache") }), "MODULE_CACHE_UNSAFE");
    expect(error.message).toContain("symbolic link");
  });

  it.skipIf(!isRoot)("a folder owned by another user is refused, whatever its mode (run as root: chown to nobody)", async () => {
    const { entry } = await tracedModule();
    const foreign = join(await tempDir("foreign"), "cache");
    await mkdir(foreign, { mode: 0o700 });
    await chown(foreign, NOBODY, NOBODY);
    const error = await rejection(() => compileTsModule(entry, { cacheDir: foreign }), "MODULE_CACHE_UNSAFE");
    expect(error.message).toContain(`owned by uid ${NOBODY}`);
  });

  it("no package and no usable home: os.tmpdir()/amplifier-ts-<uid>, made 0700 — and refused when someone made it first", async () => {
    const root = await tempDir("nohome");
    const homeIsAFile = join(root, "home-file");
    await writeFile(homeIsAFile, "");
    const tmp = join(root, "tmp");
    await mkdir(tmp);
    vi.stubEnv("XDG_CACHE_HOME", "");
    vi.stubEnv("HOME", homeIsAFile); // ~/.cache cannot be made below a file
    vi.stubEnv("TMPDIR", tmp);
    const expected = join(tmp, `amplifier-ts-${process.geteuid?.() ?? "user"}`);
    expect(await defaultCacheDir(root)).toBe(expected);
    expect((await stat(expected)).mode & 0o777).toBe(0o700);

    await rm(expected, { recursive: true });
    await mkdir(expected); // the "attacker" is first
    await chmod(expected, 0o777);
    await rejection(() => defaultCacheDir(root), "MODULE_CACHE_UNSAFE");
  });
});

describe("cache entries are verified before they are imported", () => {
  it("a compiled file swapped after the first run is not imported: the module is rebuilt and the genuine code runs", async () => {
    const { dir, entry, marker } = await tracedModule();
    const cacheDir = await tempDir("cache");
    const first = await compileTsModule(entry, { cacheDir });
    await writeFile(first.file, plantedCode(marker));

    const again = await compileTsModule(entry, { cacheDir });
    expect(again.cached).toBe(false);
    expect(again.file).toBe(first.file); // same key: same inputs, same compiler
    expect(await readFile(again.file, "utf8")).not.toContain("PLANTED");

    const loaded = await loadModule(entry, { baseDir: dir, cacheDir });
    expect(loaded.mount({} as never, {})).toBe("genuine");
    expect(await exists(marker)).toBe(false);
    expect((await compileTsModule(entry, { cacheDir })).cached).toBe(true); // the repaired entry serves again
  });

  it("a torn compiled file (cut short) is rebuilt, not imported", async () => {
    const { entry } = await tracedModule();
    const cacheDir = await tempDir("cache");
    const first = await compileTsModule(entry, { cacheDir });
    const code = await readFile(first.file, "utf8");
    await writeFile(first.file, code.slice(0, Math.floor(code.length / 2)));
    const again = await compileTsModule(entry, { cacheDir });
    expect(again.cached).toBe(false);
    expect(await readFile(again.file, "utf8")).toBe(code);
  });

  it("a manifest pointing at another file in the cache is not followed", async () => {
    const { entry, marker } = await tracedModule();
    const cacheDir = await tempDir("cache");
    const first = await compileTsModule(entry, { cacheDir });
    const other = join(cacheDir, "other.mjs");
    await writeFile(other, plantedCode(marker), { mode: 0o600 });
    const manifestFile = join(cacheDir, (await readdir(cacheDir)).find((name) => name.endsWith(".json"))!);
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { output: string; outputHash: string };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, output: other, outputHash: createHash("sha256").update(plantedCode(marker)).digest("hex") }));
    const again = await compileTsModule(entry, { cacheDir });
    expect(again.file).toBe(first.file);
    expect(again.cached).toBe(false);
  });

  it.skipIf(!isRoot)("a cached file owned by another user is not trusted, even with the right content", async () => {
    const { entry } = await tracedModule();
    const cacheDir = await tempDir("cache");
    const first = await compileTsModule(entry, { cacheDir });
    await chown(first.file, NOBODY, NOBODY);
    const again = await compileTsModule(entry, { cacheDir });
    expect(again.cached).toBe(false);
    expect((await stat(again.file)).uid).toBe(0); // replaced by this user's copy
  });
});
