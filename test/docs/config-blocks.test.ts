import { describe, expect, it } from "vitest";
import type { AmplifierConfig } from "../../contracts/index.js";
import { validateConfig } from "../../core/config/index.js";
import { loadModule, validateModuleConfig } from "../../core/loader/index.js";
import { BUILTIN_MODULE_NAMES, builtinModuleNames } from "../../src/session/index.js";
import { planModules } from "../../core/loader/plan-modules.js";
import { createHistoryStore } from "../../src/modules/stores.js";
import { parseMarkdown, readDoc, ROOT, shippedDocs, type Fence } from "./markdown.js";

/**
 * The JSON counterpart of code-blocks.test.ts (issue 25, item 14: docs that do not compile or
 * lie): every config in the shipped docs is one the loader accepts.
 *
 * | block                                   | checked as                                                   |
 * |-----------------------------------------|--------------------------------------------------------------|
 * | a whole config (has `session`)          | validateConfig, then each built-in module's config by its schema |
 * | `"context": { … }`                      | the session's context entry of a config                       |
 * | `"store": { … }`                        | context-persistent's `store`, and a HistoryStore built from it (options checked, nothing connects) |
 * | anything else (a package.json …)        | not a config: left alone                                      |
 *
 * A module named by a path (`./loop.ts`) is the reader's own; only its place in the config is checked.
 */
interface ConfigBlock {
  where: string;
  config: AmplifierConfig;
  store?: Record<string, unknown>;
}

const BUILTIN = new Set(builtinModuleNames());

/** The config a JSON block stands for, or undefined when it is not one. */
function configOf(doc: string, fence: Fence): ConfigBlock | undefined | Error {
  const where = `${doc}:${fence.line}`;
  let value: unknown;
  try {
    value = JSON.parse(fence.code);
  } catch {
    try {
      value = JSON.parse(`{${fence.code}}`); // a fragment: one or more properties of an object
    } catch (error) {
      return new Error(`${where} is neither JSON nor a JSON fragment: ${(error as Error).message}`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
  if ("session" in object) return { where, config: object as unknown as AmplifierConfig };
  if ("context" in object) return { where, config: { session: { context: object.context } } as AmplifierConfig };
  if ("store" in object) {
    const store = object.store as Record<string, unknown>;
    return { where, config: { session: { context: { module: "context-persistent", config: { store } } } } as AmplifierConfig, store };
  }
  return undefined;
}

/** Every problem of one config block, as text. */
async function problemsOf(block: ConfigBlock): Promise<string[]> {
  const problems: string[] = [];
  const fail = (error: unknown) => problems.push(`${block.where} ${(error as { code?: string }).code ?? "?"}: ${(error as Error).message}`);
  try {
    validateConfig(block.config);
  } catch (error) {
    fail(error);
    return problems;
  }
  for (const entry of planModules(block.config)) {
    if (!BUILTIN.has(entry.specifier)) continue;
    try {
      const loaded = await loadModule(entry.specifier, { baseDir: ROOT, path: entry.path, moduleNames: BUILTIN_MODULE_NAMES });
      validateModuleConfig(loaded.meta, entry.config, { module: entry.specifier, at: [...entry.at, "config"] });
    } catch (error) {
      fail(error);
    }
  }
  if (block.store !== undefined) {
    try {
      await createHistoryStore(block.store as never).close();
    } catch (error) {
      fail(error);
    }
  }
  return problems;
}

describe("the configs of the shipped docs", () => {
  const found = shippedDocs().flatMap((doc) => readDoc(doc).fences.filter((f) => f.info[0] === "json").map((fence) => configOf(doc, fence)));

  it("are read: every JSON block is JSON or a fragment of an object, and the README's configs are found", () => {
    expect(found.filter((b) => b instanceof Error).map(String)).toEqual([]);
    const blocks = found.filter((b): b is ConfigBlock => b !== undefined && !(b instanceof Error));
    expect(blocks.filter((b) => b.where.startsWith("README.md:")).length).toBeGreaterThanOrEqual(8);
  });

  it("are accepted: the config's shape, each built-in module's config, each store's options", async () => {
    const blocks = found.filter((b): b is ConfigBlock => b !== undefined && !(b instanceof Error));
    const problems = (await Promise.all(blocks.map(problemsOf))).flat();
    expect(problems).toEqual([]);
  });

  it("the check bites: a misspelt option of a built-in module, a store without a url scheme", async () => {
    const doc = parseMarkdown(
      ["```json", '"context": { "module": "context-persistent", "config": { "fsnyc": "always" } }', "```", "", "```json", '"store": { "type": "postgres", "url": "mysql://db/app" }', "```", ""].join("\n"),
    );
    const [typo, store] = doc.fences.map((fence) => configOf("BROKEN.md", fence)) as ConfigBlock[];
    expect(await problemsOf(typo!)).toEqual([expect.stringMatching(/^BROKEN\.md:1 INVALID_MODULE_CONFIG: .*fsnyc/)]);
    expect(await problemsOf(store!)).toEqual([expect.stringMatching(/^BROKEN\.md:5 INVALID_ARGUMENT: .*postgres:\/\//)]);
  });
});
