import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModule } from "../../core/loader/load-module.js";
import { CONFIGS, FIXTURES, MODULES, rejection } from "./support.js";

const fromConfigs = { baseDir: CONFIGS };

describe("loadModule", () => {
  it("takes mount and meta from named exports", async () => {
    const loaded = await loadModule("../modules/echo-tool.js", fromConfigs);
    expect(loaded).toMatchObject({ source: "path", file: `${MODULES}/echo-tool.js`, meta: { name: "echo-tool", kind: "tool" } });
    expect(typeof loaded.mount).toBe("function");
  });

  it("takes them from a default export object too", async () => {
    const loaded = await loadModule("../modules/default-export.mjs", fromConfigs);
    expect(loaded.meta).toEqual({ name: "default-export", kind: "hook" });
    expect(typeof loaded.mount).toBe("function");
  });

  it("loads a .ts module without a build step", async () => {
    const loaded = await loadModule("../modules/ts-module/index.ts", fromConfigs);
    expect(loaded.meta?.name).toBe("ts-greeter");
    const tool = (await loaded.mount({} as never, { name: "ts" })) as { execute(): { output: string } };
    expect(tool.execute().output).toBe("hello ts");
  });

  it("loads an npm package by name, resolved from the config's folder", async () => {
    const loaded = await loadModule("amplifier-fixture-tool", fromConfigs);
    expect(loaded).toMatchObject({ source: "package", file: `${FIXTURES}/node_modules/amplifier-fixture-tool/esm/index.js` });
    expect(loaded.meta).toMatchObject({ name: "amplifier-fixture-tool", version: "2.0.0" });
  });

  it("loads a built-in by name", async () => {
    const loaded = await loadModule("context-simple", fromConfigs);
    expect(loaded).toMatchObject({ source: "builtin", meta: { name: "context-simple", kind: "context" } });
  });

  it("no mount export: INVALID_MODULE naming the module, its file and what it exports", async () => {
    const error = await rejection(() => loadModule("../modules/no-mount.js", { ...fromConfigs, path: "hooks[0]" }), "INVALID_MODULE");
    expect(error.details).toMatchObject({ module: "../modules/no-mount.js", file: `${MODULES}/no-mount.js`, path: "hooks[0]", given: 'exports ["setup"]' });
    expect(error.expected).toContain("mount(coordinator, config)");
  });

  it("a malformed meta: INVALID_MODULE_META naming the field", async () => {
    const name = await rejection(() => loadModule("../modules/bad-meta.js", fromConfigs), "INVALID_MODULE_META");
    expect(name.details).toMatchObject({ module: "../modules/bad-meta.js", path: "meta.name", expected: "a non-empty string", given: 42 });
    const schema = await rejection(() => loadModule("../modules/bad-schema.js", fromConfigs), "INVALID_MODULE_META");
    expect(schema.details).toMatchObject({ path: "meta.configSchema", expected: "a valid JSON Schema (draft-07, 2019-09 or 2020-12)" });
    expect(schema.details.cause).toBeInstanceOf(Error);
  });

  it("a module that throws while imported: MODULE_IMPORT_FAILED with the cause", async () => {
    const error = await rejection(() => loadModule("../modules/import-fails.js", fromConfigs), "MODULE_IMPORT_FAILED");
    expect(error.details.cause).toBeInstanceOf(Error);
    expect(error.message).toContain("top-level failure in import-fails.js");
  });

  it("a .ts module that does not compile: MODULE_COMPILE_FAILED naming the module and the place", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amplifier-broken-"));
    await writeFile(join(dir, "broken.ts"), "export const x = ;\n");
    const error = await rejection(() => loadModule("./broken.ts", { baseDir: dir, path: "tools[0]" }), "MODULE_COMPILE_FAILED");
    expect(error.details).toMatchObject({ module: "./broken.ts", path: "tools[0]", file: join(dir, "broken.ts") });
    expect(error.message).toContain("broken.ts:1:18");
  });
});
