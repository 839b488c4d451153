import { describe, expect, it } from "vitest";
import { ajvValidators, fixtures, fixtureSetNames, schemaNames, ZOD_VALIDATORS } from "./schema-catalog.js";
// @ts-expect-error — a plain .mjs tool without type declarations
import { SCHEMA_SOURCES } from "../../contracts/emit-schemas.mjs";
// @ts-expect-error — a plain .mjs tool without type declarations
import { packagesWithSchemas } from "../../tools/emit-module-schemas.mjs";

/**
 * The zod schemas are the source of truth; the JSON Schema files are emitted from them
 * (`npm run contracts`) for editors and other tools. Every shared fixture goes through both — the
 * file as an independent JSON Schema reader (ajv) sees it, and zod — and both must give the
 * fixture's verdict, so what the files say cannot drift from what the validators do. Nothing is
 * listed by hand: schemas and fixtures are found on disk, so a new schema without a registered zod
 * source or without fixtures fails here instead of drifting silently.
 */
const names = schemaNames();
const ajv = ajvValidators();
const MIN_FIXTURES = 1;

describe("every JSON Schema has a zod mirror and shared fixtures", () => {
  it("finds the schemas", () => {
    expect(names).toEqual(expect.arrayContaining(["message", "hook-result", "provider-info"]));
  });

  it.each(names)("%s has a registered zod validator", (name) => {
    expect(
      ZOD_VALIDATORS[name],
      `contracts/schemas/${name}.schema.json has no zod mirror. Add "${name}": <zod schema> to ` +
        (name.startsWith("modules/")
          ? "MODULE_CONFIG_VALIDATORS in test/contracts/module-config-validators.ts"
          : "CONTRACT_VALIDATORS in contracts/validators/registry.ts"),
    ).toBeDefined();
  });

  it.each(names)("%s has valid and invalid fixtures", (name) => {
    for (const kind of ["valid", "invalid"] as const) {
      expect(
        fixtures(name, kind).length,
        `add at least ${MIN_FIXTURES} JSON document(s) the schema ${kind === "valid" ? "accepts" : "rejects"} to test/fixtures/contracts/${name}/${kind}/`,
      ).toBeGreaterThanOrEqual(MIN_FIXTURES);
    }
  });

  it("each schema file is emitted from the very zod schema checked here (contracts/emit-schemas.mjs, tools/emit-module-schemas.mjs)", async () => {
    const packages = (await packagesWithSchemas()) as Array<{ folder: string; schemas: Array<{ name: string; source: string; export: string; alias?: string }> }>;
    const fromPackages = packages.flatMap((p) =>
      p.schemas.filter((s) => s.alias !== undefined).map((s) => ({ schema: s.alias!.replace(/^contracts\/schemas\//, "").replace(/\.schema\.json$/, ""), module: `${p.folder}/${s.source.replace(/^\.\//, "")}`, name: s.export })),
    );
    const sources = [...(SCHEMA_SOURCES as Array<{ schema: string; module: string; name: string }>), ...fromPackages];
    expect(sources.map((s) => s.schema).sort()).toEqual(names);
    for (const source of sources) {
      const module = (await import(`../../${source.module.replace(/\.ts$/, ".js")}`)) as Record<string, unknown>;
      expect(module[source.name], `${source.module} exports ${source.name}`).toBeDefined();
      // A store module's editor schema is built (from its registry) by a function: checked by the fixtures below.
      if (typeof module[source.name] === "function") continue;
      expect(module[source.name], `${source.schema}: the emitted source and the checked validator are one schema`).toBe(ZOD_VALIDATORS[source.schema]);
    }
  });

  it("every fixture set and registry entry belongs to a schema", () => {
    const orphans = [...fixtureSetNames(), ...Object.keys(ZOD_VALIDATORS)].filter((name) => !names.includes(name));
    expect(orphans, "fixtures or validators for a schema that contracts/schemas/ no longer has").toEqual([]);
  });
});

for (const name of names) {
  const zod = ZOD_VALIDATORS[name];
  const validateJson = ajv.get(name)!;
  if (!zod) continue; // reported above, with what to add

  describe(`${name}: JSON Schema and zod agree on the shared fixtures`, () => {
    it.each(fixtures(name, "valid").map((f) => [f.file, f.document] as const))("%s is accepted by both", (_file, document) => {
      expect(validateJson(document), JSON.stringify(validateJson.errors)).toBe(true);
      const parsed = zod.safeParse(document);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    });

    it.each(fixtures(name, "invalid").map((f) => [f.file, f.document] as const))("%s is rejected by both", (_file, document) => {
      expect(validateJson(document)).toBe(false);
      expect(zod.safeParse(document).success).toBe(false);
    });
  });
}
