import { describe, expect, it } from "vitest";
import { loadModule } from "../../core/loader/load-module.js";
import { z } from "zod";
import { validateModuleConfig } from "../../core/loader/validate-module-config.js";
import { validateModuleMeta } from "../../core/loader/validate-module-meta.js";
import type { AmplifierError } from "../../contracts/errors.js";
import { CONFIGS, rejection } from "./support.js";

const where = { module: "context-simple", at: ["session", "context", "config"], file: "/app/amplifier.config.json" };

describe("validateModuleConfig (meta.configSchema, checked before mount)", () => {
  it("unknown key in a built-in's config: did you mean, from the schema's property names", async () => {
    const { meta } = await loadModule("context-simple", { baseDir: CONFIGS });
    const error = await rejection(() => validateModuleConfig(meta, { max_tokens: 4096 }, where), "INVALID_MODULE_CONFIG");
    expect(error.details).toMatchObject({
      module: "context-simple",
      file: "/app/amplifier.config.json",
      path: "session.context.config.max_tokens",
      given: "max_tokens",
      hint: 'did you mean "maxTokens"?',
    });
    expect(error.message).toContain('[INVALID_MODULE_CONFIG] unknown key "max_tokens" (module "context-simple"');
  });

  it("reports every problem of the config, each with path, expected and given", async () => {
    const { meta } = await loadModule("../modules/memory-context.mjs", { baseDir: CONFIGS });
    const error = await rejection(() => validateModuleConfig(meta, { max_tokens: 1, maxTokens: 0, label: 7 }, where), "INVALID_MODULE_CONFIG");
    const issues = (error.details.errors as AmplifierError[]).map((e) => [e.path, e.expected, e.given]);
    expect(issues).toEqual([
      ["session.context.config.max_tokens", 'one of the keys "maxTokens", "label"', "max_tokens"],
      ["session.context.config.maxTokens", "a number >= 1", 0],
      ["session.context.config.label", "a string", 7],
    ]);
    expect(error.message).toContain("3 problems");
  });

  it("accepts a valid config, and anything when the module has no schema", async () => {
    const { meta } = await loadModule("../modules/memory-context.mjs", { baseDir: CONFIGS });
    expect(() => validateModuleConfig(meta, { maxTokens: 10, label: "x" }, where)).not.toThrow();
    expect(() => validateModuleConfig(undefined, { whatever: true }, where)).not.toThrow();
    expect(() => validateModuleConfig({ name: "no-schema" }, { whatever: true }, where)).not.toThrow();
  });

  it("understands draft 2020-12 schemas and formats", async () => {
    const meta = {
      name: "modern",
      configSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { endpoint: { type: "string", format: "uri" }, mode: { enum: ["fast", "safe"] } },
        unevaluatedProperties: false,
      },
    };
    const error = await rejection(() => validateModuleConfig(meta, { endpoint: "not a uri", mode: "saf" }, { module: "modern", at: ["tools", 0, "config"] }), "INVALID_MODULE_CONFIG");
    const issues = (error.details.errors as AmplifierError[]).map((e) => [e.path, e.expected, e.details.hint]);
    expect(issues).toEqual([
      ["tools[0].config.endpoint", 'a string in format "uri"', undefined],
      ["tools[0].config.mode", 'one of "fast", "safe"', 'did you mean "safe"?'],
    ]);
  });

  it("a zod configSchema is used as is, worded by the same translator", async () => {
    const meta = validateModuleMeta({ name: "zod-configured", configSchema: z.strictObject({ retries: z.number().int().min(0).optional() }) }, { module: "zod-configured" });
    expect(() => validateModuleConfig(meta, { retries: 2 }, where)).not.toThrow();
    const error = await rejection(() => validateModuleConfig(meta, { retires: 2 }, where), "INVALID_MODULE_CONFIG");
    expect(error.details).toMatchObject({ path: "session.context.config.retires", given: "retires", hint: 'did you mean "retries"?' });
  });

  it("a JSON Schema zod cannot read (if/then) is refused when the module is loaded, naming meta.configSchema", async () => {
    const configSchema = { type: "object", properties: { mode: { type: "string" } }, if: { properties: { mode: { const: "x" } } }, then: { required: ["mode"] } };
    const error = await rejection(() => validateModuleMeta({ name: "conditional", configSchema }, { module: "conditional" }), "INVALID_MODULE_META");
    expect(error.details).toMatchObject({ module: "conditional", path: "meta.configSchema", expected: "a valid JSON Schema (draft-07, 2019-09 or 2020-12)" });
    expect(error.details.cause).toBeInstanceOf(Error);
  });
});
