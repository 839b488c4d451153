/**
 * The first half of `npm run contracts`: the contracts' JSON Schema files, emitted from their zod
 * sources.
 *
 * zod is the one source of truth of every schema: contracts/validators/* for the contracts.
 * `z.toJSONSchema` (draft-07) writes contracts/schemas/<name>.schema.json — the files editors read
 * for `$schema` completion, and from which contracts/generate.mjs then generates the TypeScript
 * types. What JSON Schema says beyond zod's shapes (titles, descriptions, `integer`, `format`, the
 * message's role rules as if/then) is zod metadata (`.meta()`) on the source, next to the shape it
 * describes.
 *
 * Only files under contracts/ are read: a module's config schema is the module's own, emitted into
 * its package by tools/emit-module-schemas.mjs (with a copy under contracts/schemas/modules/, where
 * users' `$schema` URLs point); `npm run contracts` (tools/contracts.mjs) runs both steps.
 *
 * The sources are TypeScript, read through esbuild into .cache/contracts/, so this runs before any
 * build; npm packages (zod) stay external.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** contracts/schemas/<name>.schema.json ← export `name` of `module` (repo-relative). */
export const SCHEMA_SOURCES = [
  { schema: "amplifier-config", module: "contracts/validators/amplifier-config.ts", name: "amplifierConfigSchema" },
  { schema: "hook-result", module: "contracts/validators/hook-result.ts", name: "hookResultSchema" },
  { schema: "message", module: "contracts/validators/message.ts", name: "messageSchema" },
  { schema: "provider-info", module: "contracts/validators/provider-info.ts", name: "providerInfoSchema" },
  { schema: "memory-event", module: "contracts/memory/memory-schemas.ts", name: "memoryEventJsonSchema" },
];

const SCHEMA_BASE = "https://amplifier-ts.dev/schemas/";
export const SCHEMA_BANNER = "by `npm run contracts` (contracts/emit-schemas.mjs) — do not edit.";

/** Map of repo-relative schema path → exact file text, for the contracts of the repository at `root`. */
export async function emitSchemas(root) {
  const entry = [
    'import { z } from "zod";',
    ...SCHEMA_SOURCES.map((s, i) => `import { ${s.name} as source${i} } from ${JSON.stringify(join(root, s.module))};`),
    `export const sources = [${SCHEMA_SOURCES.map((_, i) => `source${i}`).join(", ")}];`,
    'export const toJSONSchema = (schema) => z.toJSONSchema(schema, { target: "draft-7", io: "input", unrepresentable: "throw" });',
  ].join("\n");
  const outdir = join(root, ".cache", "contracts");
  await mkdir(outdir, { recursive: true });
  const outfile = join(outdir, "schema-sources.mjs");
  await build({
    stdin: { contents: entry, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    plugins: [externalNpmPackages],
  });
  const { sources, toJSONSchema } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  const files = new Map();
  SCHEMA_SOURCES.forEach((source, i) => {
    const text = schemaDocument(toJSONSchema(sources[i]), { id: `${SCHEMA_BASE}${source.schema}.schema.json`, comment: `Generated from ${source.module} (${source.name}) ${SCHEMA_BANNER}` });
    files.set(`contracts/schemas/${source.schema}.schema.json`, text);
  });
  return files;
}

/**
 * One emitted JSON Schema file's text: zod's draft-07 output tidied, with `$id` and `$comment`
 * placed after `$schema` and before the title (the contracts' and the modules' emitters share it).
 */
export function schemaDocument(jsonSchema, { id, comment }) {
  const { $schema, title, description, ...rest } = tidy(jsonSchema);
  const document = {
    $schema,
    $id: id,
    $comment: comment,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...rest,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Every bare import (zod) stays external: the contracts import nothing of ours. */
const externalNpmPackages = {
  name: "external-npm-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * What zod writes one way and JSON Schema readers expect another: `additionalProperties: {}`
 * (any value) reads `true`, a record's `propertyNames: { type: "string" }` is implied by JSON,
 * and a lone `allOf` of one schema is that schema.
 */
function tidy(node) {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== "object") return node;
  // `{ allOf: [X] }` alone is X (zod wraps a reused schema's $ref so draft-07 keeps siblings).
  if (Object.keys(node).length === 1 && Array.isArray(node.allOf) && node.allOf.length === 1) return tidy(node.allOf[0]);
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "propertyNames" && isStringType(value)) continue;
    if (key === "additionalProperties" && isEmptyObject(value)) out[key] = true;
    else out[key] = tidy(value);
  }
  return out;
}

function isEmptyObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}

function isStringType(value) {
  return value !== null && typeof value === "object" && Object.keys(value).length === 1 && value.type === "string";
}
