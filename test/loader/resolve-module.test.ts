import { mkdtemp, mkdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { MODULE_PACKAGE_PREFIX, resolveNamedPackage } from "../../core/loader/module-names.js";
import { BUILTIN_MODULE_NAMES, BUILTIN_MODULES, builtinModuleFile, SEPARATELY_INSTALLED_MODULES } from "../../src/session/builtin-modules.js";
import { resolveModule } from "../../core/loader/resolve-module.js";
import { resolvePackage } from "../../core/loader/resolve-package.js";
import { CONFIGS, FIXTURES, MODULES, rejection } from "./support.js";

describe("resolveModule", () => {
  it("1. a built-in name resolves to its file in modules/: by the distribution's alias, and by the naming convention alone", () => {
    const resolved = resolveModule("context-simple", CONFIGS, undefined, BUILTIN_MODULE_NAMES);
    expect(resolved).toEqual({ specifier: "context-simple", source: "builtin", file: builtinModuleFile("context-simple") });
    expect(resolved.file).toMatch(/modules\/context-simple\/index\.(js|ts)$/);
    // A kernel-only install: no table, `x` → @amplifier-ts/module-x.
    expect(resolveModule("context-simple", CONFIGS)).toEqual(resolved);
  });

  it("an alias maps any name (a former one) to its package; the alias shadows the convention", () => {
    const names = { aliases: { "old-context": "@amplifier-ts/module-context-simple", "context-persistent": "@amplifier-ts/module-context-simple" } };
    expect(resolveModule("old-context", CONFIGS, undefined, names).file).toBe(builtinModuleFile("context-simple"));
    expect(resolveModule("context-persistent", CONFIGS, undefined, names).file).toBe(builtinModuleFile("context-simple"));
  });

  it("the built-in table is data: every name is an npm package @amplifier-ts/module-<name>, resolved like a third party's", () => {
    for (const [name, entry] of Object.entries(BUILTIN_MODULES)) {
      expect(entry).toBe(`${MODULE_PACKAGE_PREFIX}${name}`);
      // The same resolver a third-party package goes through, from the config's folder.
      expect(resolvePackage(entry, process.cwd())).toMatchObject({ ok: true, file: builtinModuleFile(name) });
    }
  });

  it("a built-in resolves from the distribution's (or the kernel's) installation when the config's folder has no node_modules", async () => {
    const root = await mkdtemp(join(tmpdir(), "amplifier-no-builtins-"));
    // From an empty folder the package still resolves from amplifier-ts's own installation.
    expect(resolveNamedPackage(BUILTIN_MODULES["context-simple"]!, root, BUILTIN_MODULE_NAMES)).toMatchObject({ ok: true });
    expect(builtinModuleFile("context-simple", root)).toBeDefined();
    expect(builtinModuleFile("not-a-builtin", root)).toBeUndefined();
    // A kernel-only install: the kernel finds the conventional package beside itself.
    expect(resolveModule("context-simple", root).source).toBe("builtin");
  });

  it.each([
    ["../modules/echo-tool.js", "echo-tool.js"],
    ["../modules/memory-context.mjs", "memory-context.mjs"],
    ["../modules/ts-module/index.ts", "ts-module/index.ts"],
  ])("2. a relative path (%s) resolves from the config's folder", (specifier, file) => {
    expect(resolveModule(specifier, CONFIGS)).toEqual({ specifier, source: "path", file: `${MODULES}/${file}` });
  });

  it("2. absolute paths and file: URLs are paths too", () => {
    const file = `${MODULES}/echo-tool.js`;
    expect(resolveModule(file, "/elsewhere").file).toBe(file);
    expect(resolveModule(pathToFileURL(file).href, "/elsewhere").file).toBe(file);
  });

  it("3. an npm package resolves from the config's folder with Node's import conditions", () => {
    const resolved = resolveModule("amplifier-fixture-tool", CONFIGS);
    expect(resolved).toEqual({
      specifier: "amplifier-fixture-tool",
      source: "package",
      file: `${FIXTURES}/node_modules/amplifier-fixture-tool/esm/index.js`,
    });
  });

  it("3. a scoped package without exports resolves through main", () => {
    expect(resolveModule("@amplifier-fixture/legacy-hook", CONFIGS).file).toBe(`${FIXTURES}/node_modules/@amplifier-fixture/legacy-hook/lib/main.js`);
  });

  it("a missing file: MODULE_NOT_FOUND with the path tried and a sibling with another extension", async () => {
    const error = await rejection(() => resolveModule("../modules/ts-module/index.js", CONFIGS, "tools[1]"), "MODULE_NOT_FOUND");
    expect(error.details).toMatchObject({
      module: "../modules/ts-module/index.js",
      file: `${MODULES}/ts-module/index.js`,
      path: "tools[1]",
      hint: 'did you mean "../modules/ts-module/index.ts"?',
    });
  });

  it("a path to an unsupported kind of file: MODULE_NOT_FOUND saying which extensions work", async () => {
    const error = await rejection(() => resolveModule("./tool.cjs", CONFIGS), "MODULE_NOT_FOUND");
    expect(error.expected).toBe("a path ending in .js, .mjs or .ts");
  });

  it("an uninstalled package: MODULE_NOT_FOUND, with the built-in it probably meant", async () => {
    const typo = await rejection(() => resolveModule("context-simpel", CONFIGS, undefined, BUILTIN_MODULE_NAMES), "MODULE_NOT_FOUND");
    expect(typo.details.hint).toBe('did you mean "context-simple"?');
    const missing = await rejection(() => resolveModule("amplifier-no-such-package", CONFIGS, undefined, BUILTIN_MODULE_NAMES), "MODULE_NOT_FOUND");
    expect(missing.details.hint).toBe("npm install @amplifier-ts/module-amplifier-no-such-package (an amplifier-ts module) or amplifier-no-such-package, or use a ./relative path");
    const scoped = await rejection(() => resolveModule("@someone/no-such-plugin", CONFIGS), "MODULE_NOT_FOUND");
    expect(scoped.details.hint).toBe("npm install @someone/no-such-plugin, or use a ./relative path");
    // A kernel-only install has no list of names, but still says which package a short name stands for.
    const bare = await rejection(() => resolveModule("memory-nowhere", CONFIGS), "MODULE_NOT_FOUND");
    expect(bare.details.hint).toMatch(/^npm install @amplifier-ts\/module-memory-nowhere /);
    expect(missing.message).toContain("package not installed");
  });

  it("not a name at all: MODULE_NOT_FOUND listing the three kinds of reference", async () => {
    const error = await rejection(() => resolveModule("Not A Name", CONFIGS, undefined, BUILTIN_MODULE_NAMES), "MODULE_NOT_FOUND");
    // Every built-in of the table, in its order, then the separately installed ones (derived, so adding a built-in does not edit this test).
    expect(Object.keys(BUILTIN_MODULES)).toEqual(expect.arrayContaining(["context-simple", "memory-tool", "store-blobs"]));
    const names = [...Object.keys(BUILTIN_MODULES), ...Object.keys(SEPARATELY_INSTALLED_MODULES)];
    expect(error.expected).toBe(`a built-in name (${names.join(", ")}), a relative path to a .js, .mjs or .ts file, or an installed npm package name`);
  });
});

describe("resolvePackage", () => {
  async function packageWith(manifest: object, files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), "amplifier-resolve-"));
    const dir = join(root, "node_modules", "pkg");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "pkg", ...manifest }));
    for (const [file, content] of Object.entries(files)) {
      await mkdir(join(dir, file, ".."), { recursive: true });
      await writeFile(join(dir, file), content);
    }
    return root;
  }

  it("follows exports: string, nested conditions, subpaths, patterns, fallback arrays", async () => {
    const root = await packageWith(
      {
        exports: {
          ".": { types: "./index.d.ts", node: { import: "./node.mjs", require: "./node.cjs" }, default: "./browser.js" },
          "./tools/*": "./dist/tools/*.js",
          "./fallback": ["invalid-target-without-dot-slash.js", "./fallback.js"],
          "./hidden": null,
        },
      },
      { "node.mjs": "", "dist/tools/search.js": "", "fallback.js": "" },
    );
    const nodeModules = join(root, "node_modules", "pkg");
    expect(resolvePackage("pkg", root)).toMatchObject({ ok: true, file: join(nodeModules, "node.mjs") });
    expect(resolvePackage("pkg/tools/search", root)).toMatchObject({ ok: true, file: join(nodeModules, "dist/tools/search.js") });
    expect(resolvePackage("pkg/fallback", root)).toMatchObject({ ok: true, file: join(nodeModules, "fallback.js") });
    expect(resolvePackage("pkg/hidden", root)).toMatchObject({ ok: false, reason: "not-exported" });
    expect(resolvePackage("pkg/other", root)).toMatchObject({ ok: false, reason: "not-exported" });
  });

  it("without exports: main, then index.js; a missing entry is reported", async () => {
    const withIndex = await packageWith({}, { "index.js": "" });
    expect(resolvePackage("pkg", withIndex)).toMatchObject({ ok: true, file: join(withIndex, "node_modules/pkg/index.js") });
    const broken = await packageWith({ main: "gone.js" }, {});
    expect(resolvePackage("pkg", broken)).toMatchObject({ ok: false, reason: "no-entry" });
  });

  it("searches node_modules upwards and returns the real path of a linked package", async () => {
    const root = await packageWith({ exports: "./main.js" }, { "main.js": "" });
    const nested = join(root, "a", "b");
    await mkdir(nested, { recursive: true });
    expect(resolvePackage("pkg", nested)).toMatchObject({ ok: true, file: join(root, "node_modules/pkg/main.js") });

    const linkedRoot = await mkdtemp(join(tmpdir(), "amplifier-link-"));
    await mkdir(join(linkedRoot, "node_modules"));
    await symlink(join(root, "node_modules", "pkg"), join(linkedRoot, "node_modules", "pkg"));
    expect(resolvePackage("pkg", linkedRoot)).toMatchObject({ ok: true, file: join(root, "node_modules/pkg/main.js") });
  });
});

describe("resolvePackage: self-reference (Node's PACKAGE_SELF_RESOLVE)", () => {
  /** A plugin's own folder, as its author has it: package.json with exports, no node_modules link to itself. */
  async function pluginFolder(manifest: object): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "amplifier-self-"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "my-plugin", type: "module", ...manifest }));
    await writeFile(join(dir, "index.js"), "");
    await writeFile(join(dir, "extra.js"), "");
    await mkdir(join(dir, "test"));
    return dir;
  }

  it("inside a package with exports, its own name (and its exported subpaths) resolve to itself", async () => {
    const dir = await pluginFolder({ exports: { ".": "./index.js", "./extra": "./extra.js" } });
    expect(resolvePackage("my-plugin", join(dir, "test"))).toEqual({ ok: true, file: join(dir, "index.js"), packageDir: dir });
    expect(resolvePackage("my-plugin/extra", dir)).toMatchObject({ ok: true, file: join(dir, "extra.js") });
    // As in Node: the package's exports decide; no fallback to node_modules for a subpath it hides.
    expect(resolvePackage("my-plugin/index.js", dir)).toMatchObject({ ok: false, reason: "not-exported", packageDir: dir });
  });

  it("not without exports, not for another name, not from a dependency inside node_modules", async () => {
    expect(resolvePackage("my-plugin", await pluginFolder({ main: "./index.js" }))).toMatchObject({ ok: false, reason: "not-installed" });
    const dir = await pluginFolder({ exports: "./index.js" });
    expect(resolvePackage("other-plugin", dir)).toMatchObject({ ok: false, reason: "not-installed" });
    // A dependency's code lies in the dependency's package scope, never in the project's.
    const dependency = join(dir, "node_modules", "dep", "lib");
    await mkdir(dependency, { recursive: true });
    await writeFile(join(dir, "node_modules", "dep", "package.json"), JSON.stringify({ name: "dep", exports: "./lib/index.js" }));
    expect(resolvePackage("my-plugin", dependency)).toMatchObject({ ok: false, reason: "not-installed" });
    // A folder under node_modules with no package.json of its own: the scope search stops there.
    const loose = join(dir, "node_modules", "loose");
    await mkdir(loose, { recursive: true });
    expect(resolvePackage("my-plugin", loose)).toMatchObject({ ok: false, reason: "not-installed" });
  });
});

describe("userConditions", () => {
  it("reads the export conditions Node was started with, in each of Node's spellings", async () => {
    const { userConditions } = await import("../../core/loader/resolve-package.js");
    expect(userConditions(["--conditions=source", "--inspect", "-C", "development", "-C=edge", "--conditions", "worker"])).toEqual(["source", "development", "edge", "worker"]);
    expect(userConditions(["--conditions"])).toEqual([]);
    expect(userConditions([])).toEqual([]);
  });
});
