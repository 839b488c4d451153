import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import AjvModule from "ajv";
import configSchema from "../../contracts/schemas/amplifier-config.schema.json" with { type: "json" };
import { amplifierConfigSchema } from "../../contracts/validators/amplifier-config.js";

const fixtures = fileURLToPath(new URL("../fixtures/contracts/amplifier-config/", import.meta.url));
// ajv is the test's reference reader of the JSON Schema file (what editors and other tools read).
const validate = new AjvModule.default({ allErrors: true, strict: false }).compile(configSchema);

function documents(kind: "valid" | "invalid"): Array<[string, unknown]> {
  return readdirSync(`${fixtures}${kind}`)
    .filter((name) => name.endsWith(".json"))
    .map((name) => [name, JSON.parse(readFileSync(`${fixtures}${kind}/${name}`, "utf8"))]);
}

describe("amplifier-config: the JSON Schema and its zod mirror agree on the shared fixtures", () => {
  it.each(documents("valid"))("valid/%s passes both", (_name, document) => {
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(amplifierConfigSchema.safeParse(document).success).toBe(true);
  });

  it.each(documents("invalid"))("invalid/%s fails both", (_name, document) => {
    expect(validate(document)).toBe(false);
    expect(amplifierConfigSchema.safeParse(document).success).toBe(false);
  });
});
