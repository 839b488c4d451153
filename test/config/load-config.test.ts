import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfigText, validateConfig } from "../../core/config/index.js";
import { AmplifierError, type ErrorCode } from "../../contracts/errors.js";

const configs = fileURLToPath(new URL("../fixtures/configs/", import.meta.url));

/** The error a call throws (synchronously or not), checked to be an AmplifierError with `code`. */
async function rejection(run: () => unknown, code: ErrorCode): Promise<AmplifierError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(AmplifierError);
    expect((error as AmplifierError).code).toBe(code);
    return error as AmplifierError;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

function details(error: AmplifierError) {
  return (error.details.errors as AmplifierError[]).map((e) => ({ path: e.path, expected: e.expected, given: e.given, hint: e.details.hint }));
}

describe("loadConfig", () => {
  it("reads and validates a file; relative module paths resolve from its folder", async () => {
    const loaded = await loadConfig(join(configs, "full.amplifier.config.json"));
    expect(loaded.file).toBe(join(configs, "full.amplifier.config.json"));
    expect(loaded.baseDir).toBe(configs.replace(/\/$/, ""));
    expect(loaded.config.session.context.module).toBe("../modules/memory-context.mjs");
    expect(loaded.config.tools?.map((t) => t.name)).toEqual(["fixture", "greet"]);
  });

  it("resolves a relative path from the given cwd", async () => {
    const loaded = await loadConfig("full.amplifier.config.json", configs);
    expect(loaded.file).toBe(join(configs, "full.amplifier.config.json"));
  });

  it("not a path: INVALID_ARGUMENT", async () => {
    const error = await rejection(() => loadConfig(undefined as never), "INVALID_ARGUMENT");
    expect(error.details).toMatchObject({ path: "path", expected: "a non-empty string" });
  });

  it("missing file: CONFIG_NOT_FOUND naming the absolute path", async () => {
    const error = await rejection(() => loadConfig("nope.json", configs), "CONFIG_NOT_FOUND");
    expect(error.details.file).toBe(join(configs, "nope.json"));
    expect(error.message).toContain(join(configs, "nope.json"));
  });

  it("bad JSON: CONFIG_PARSE_ERROR with the line and column of the first syntax error", async () => {
    const error = await rejection(() => loadConfig(join(configs, "trailing-comma.amplifier.config.json")), "CONFIG_PARSE_ERROR");
    expect(error.details).toMatchObject({ file: join(configs, "trailing-comma.amplifier.config.json"), line: 3, column: 46 });
    expect(error.message).toContain("line 3, column 46");
    expect(error.message).toContain("no trailing comma");
  });

  it("reports every problem of a file at once, each with path, expected, given and a hint", async () => {
    const file = join(configs, "many-errors.amplifier.config.json");
    const error = await rejection(() => loadConfig(file), "CONFIG_INVALID");
    expect(error.details.file).toBe(file);
    expect(details(error)).toEqual(
      expect.arrayContaining([
        { path: "hook", expected: 'one of the keys "$schema", "session", "providers", "tools", "hooks", "embedder", "memory", "stores", "mountTimeoutMs"', given: "hook", hint: 'did you mean "hooks"?' },
        expect.objectContaining({ path: "session.orchestartor", given: "orchestartor", hint: 'did you mean "orchestrator"?' }),
        expect.objectContaining({ path: "session.context.module", expected: 'key "module" to be present', given: undefined }),
        expect.objectContaining({ path: "tools[0].name", expected: 'key "name" to be present' }),
        { path: "tools[0].optional", expected: "a boolean", given: "yes", hint: undefined },
      ]),
    );
    expect(details(error)).toHaveLength(5);
    expect(error.message).toContain("5 problems");
    for (const line of ["hook: unknown key", "session.orchestartor: unknown key", "session.context.module: missing required key", "tools[0].optional: wrong type"]) {
      expect(error.message).toContain(line);
    }
  });
});

describe("validateConfig", () => {
  const minimal = { session: { context: { module: "context-simple", config: {} } } };

  it("accepts the minimal config and returns it typed", () => {
    expect(validateConfig(minimal)).toBe(minimal);
  });

  it("unknown key: the error carries the hint on top when it is the only problem", async () => {
    const error = await rejection(() => validateConfig({ ...minimal, max_tokens: 5 }, { file: "/x/amplifier.config.json" }), "CONFIG_INVALID");
    expect(error.path).toBe("max_tokens");
    expect(error.given).toBe("max_tokens");
    expect(error.details.hint).toBeUndefined(); // no top-level key is close to max_tokens
    expect(error.message).toContain("/x/amplifier.config.json");
  });

  it("wrong type: names the path, what was given and what was expected", async () => {
    const error = await rejection(() => validateConfig({ session: { context: { module: 42 } } }), "CONFIG_INVALID");
    expect({ path: error.path, expected: error.expected, given: error.given }).toEqual({ path: "session.context.module", expected: "a string", given: 42 });
    expect(error.message).toBe('[CONFIG_INVALID] wrong type (at session.context.module); expected a string; given 42');
  });

  it("missing context module: the session section must name one", async () => {
    const noContext = await rejection(() => validateConfig({ session: {} }), "CONFIG_INVALID");
    expect(noContext.path).toBe("session.context");
    const noSession = await rejection(() => validateConfig({ tools: [] }), "CONFIG_INVALID");
    expect(noSession.path).toBe("session");
    const emptyName = await rejection(() => validateConfig({ session: { context: { module: "" } } }), "CONFIG_INVALID");
    expect(emptyName.expected).toBe("a string of at least 1 character(s)");
  });

  it("a module config must be an object; its keys are checked later against the module's schema", async () => {
    const error = await rejection(() => validateConfig({ session: { context: { module: "m", config: [1] } } }), "CONFIG_INVALID");
    expect({ path: error.path, expected: error.expected }).toEqual({ path: "session.context.config", expected: "an object" });
    expect(validateConfig({ session: { context: { module: "m", config: { anything: 1 } } } })).toBeTruthy();
  });

  it("providers and tools need a name, unique within the list", async () => {
    const error = await rejection(
      () =>
        validateConfig({
          ...minimal,
          tools: [
            { module: "./a.js", name: "search" },
            { module: "./b.js", name: "other" },
            { module: "./c.js", name: "search" },
          ],
        }),
      "CONFIG_INVALID",
    );
    expect({ path: error.path, given: error.given, expected: error.expected }).toEqual({
      path: "tools[2].name",
      given: "search",
      expected: "a name unique within tools (tools[0].name has it already)",
    });
  });

  it("session modules cannot be optional: they are required by definition", async () => {
    const error = await rejection(() => validateConfig({ session: { context: { module: "m", optional: true } } }), "CONFIG_INVALID");
    expect(error.path).toBe("session.context.optional");
  });

  it("mountTimeoutMs must be a positive integer", async () => {
    const error = await rejection(() => validateConfig({ ...minimal, mountTimeoutMs: 0 }), "CONFIG_INVALID");
    expect({ path: error.path, expected: error.expected, given: error.given }).toEqual({ path: "mountTimeoutMs", expected: "a number > 0", given: 0 });
  });

  it("rejects a config that is not an object", async () => {
    const error = await rejection(() => validateConfig([]), "CONFIG_INVALID");
    expect({ path: error.path, expected: error.expected }).toEqual({ path: "", expected: "an object" });
  });
});

describe("parseConfigText", () => {
  it("parses and validates text; a config written in a temp folder loads like any other", async () => {
    expect(parseConfigText('{"session":{"context":{"module":"context-simple"}}}').session.context.module).toBe("context-simple");
    const dir = await mkdtemp(join(tmpdir(), "amplifier-config-"));
    await writeFile(join(dir, "amplifier.config.json"), '\uFEFF{"session":{"context":{"module":"./ctx.js"}}}');
    expect((await loadConfig(join(dir, "amplifier.config.json"))).baseDir).toBe(dir);
  });
});
