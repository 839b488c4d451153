import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import AjvModule, { type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { ZodType } from "zod";
import { CONTRACT_VALIDATORS } from "../../contracts/validators/registry.js";
import { MODULE_CONFIG_VALIDATORS } from "./module-config-validators.js";

/**
 * What the drift tests check, found on disk rather than listed: every
 * contracts/schemas/**\/*.schema.json, its zod source from the registries, and its fixtures in
 * test/fixtures/contracts/<name>/{valid,invalid}/*.json.
 */
export const SCHEMAS_DIR = fileURLToPath(new URL("../../contracts/schemas/", import.meta.url));
export const FIXTURES_DIR = fileURLToPath(new URL("../fixtures/contracts/", import.meta.url));

export const ZOD_VALIDATORS: Readonly<Record<string, ZodType>> = { ...CONTRACT_VALIDATORS, ...MODULE_CONFIG_VALIDATORS };

export interface Fixture {
  file: string;
  document: unknown;
}

/** `message` for message.schema.json, `modules/x.config` for modules/x.config.schema.json. */
export function schemaNames(): string[] {
  return filesUnder(SCHEMAS_DIR)
    .filter((file) => file.endsWith(".schema.json"))
    .map((file) => file.slice(0, -".schema.json".length))
    .sort();
}

export function readSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.schema.json`), "utf8"));
}

export function fixtures(name: string, kind: "valid" | "invalid"): Fixture[] {
  const dir = join(FIXTURES_DIR, name, kind);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ file: `${kind}/${file}`, document: JSON.parse(readFileSync(join(dir, file), "utf8")) }));
}

/** Fixture folders (any folder holding valid/ or invalid/) — to catch fixtures whose schema is gone. */
export function fixtureSetNames(): string[] {
  return filesUnder(FIXTURES_DIR)
    .map((file) => file.split("/"))
    .filter((parts) => parts.length >= 3 && (parts.at(-2) === "valid" || parts.at(-2) === "invalid"))
    .map((parts) => parts.slice(0, -2).join("/"))
    .filter((name, index, all) => all.indexOf(name) === index)
    .sort();
}

/**
 * The reference validator: ajv, draft-07, strict mode (unknown keywords and loose `required`
 * are schema bugs), ajv-formats for `date-time`. Every schema is added to one instance, so a
 * `$ref` from one schema file to another resolves.
 */
export function ajvValidators(): Map<string, ValidateFunction> {
  const ajv = new AjvModule.default({ strict: true, allErrors: true });
  addFormatsModule.default(ajv);
  const names = schemaNames();
  const keys = new Map<string, string>();
  for (const name of names) {
    const schema = readSchema(name);
    const key = typeof schema.$id === "string" ? schema.$id : name;
    ajv.addSchema(schema, typeof schema.$id === "string" ? undefined : name);
    keys.set(name, key);
  }
  return new Map(names.map((name) => [name, ajv.getSchema(keys.get(name)!)!]));
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    // parentPath is Node ≥ 20.12; earlier 20.x named it path.
    .map((entry) => relative(dir, join(entry.parentPath ?? (entry as { path?: string }).path, entry.name)).split(sep).join("/"));
}
