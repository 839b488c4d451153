/**
 * The first half of `npm run contracts`: the JSON Schema files, emitted from their zod sources.
 *
 * zod is the one source of truth of every schema: contracts/validators/* for the contracts. A
 * module's config schema is its own: the module emits it into its package (tools/emit-module-schemas.mjs,
 * listed under "amplifier.schemas" in its package.json), and this step includes those files, and
 * their copies at the old paths under contracts/schemas/modules/, so one check covers all. `z.toJSONSchema` (draft-07)
 * writes contracts/schemas/<name>.schema.json — the files editors read for `$schema` completion,
 * and from which contracts/generate.mjs then generates the TypeScript types. What JSON Schema says
 * beyond zod's shapes (titles, descriptions, `integer`, `format`, the message's role rules as
 * if/then) is zod metadata (`.meta()`) on the source, next to the shape it describes.
 *
 * The sources are TypeScript, read through esbuild ("source" condition: workspace packages from
 * their .ts files; npm packages stay external) into .cache/contracts/, so this runs before any build.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { emitModuleSchemas } from "../tools/emit-module-schemas.mjs";

/** contracts/schemas/<name>.schema.json ← export `name` of `module` (repo-relative). */
export const SCHEMA_SOURCES = [
  { schema: "amplifier-config", module: "contracts/validators/amplifier-config.ts", name: "amplifierConfigSchema" },
  { schema: "hook-result", module: "contracts/validators/hook-result.ts", name: "hookResultSchema" },
  { schema: "message", module: "contracts/validators/message.ts", name: "messageSchema" },
  { schema: "provider-info", module: "contracts/validators/provider-info.ts", name: "providerInfoSchema" },
  { schema: "memory-event", module: "contracts/memory/memory-schemas.ts", name: "memoryEventJsonSchema" },
  { schema: "modules/memory-local.config", module: "modules/memory-local/memory-local-config.ts", name: "memoryLocalConfigSchema" },
  { schema: "modules/memory-postgres.config", module: "modules/memory-postgres/memory-postgres-config.ts", name: "memoryPostgresConfigSchema" },
  { schema: "modules/memory-redis.config", module: "modules/memory-redis/memory-redis-config.ts", name: "memoryRedisConfigSchema" },
];

const SCHEMA_BASE = "https://amplifier-ts.dev/schemas/";
export const SCHEMA_BANNER = "by `npm run contracts` (contracts/emit-schemas.mjs) — do not edit.";

/**
 * Map of repo-relative schema path → exact file text, for the repository at `root`: the contracts'
 * schemas and every module's. `moduleAliases` lists the module schemas' copies under
 * contracts/schemas/ (module options: no TypeScript types are generated from them in contracts).
 */
export async function emitSchemas(root) {
  const files = await emitContractSchemas(root);
  const modules = await emitModuleSchemas(root);
  for (const [file, text] of modules.files) files.set(file, text);
  return Object.assign(files, { moduleAliases: modules.aliases });
}

async function emitContractSchemas(root) {
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
    conditions: ["source"],
    logLevel: "warning",
    plugins: [externalNpmPackages],
  });
  const { sources, toJSONSchema } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  const files = new Map();
  SCHEMA_SOURCES.forEach((source, i) => {
    const emitted = tidy(toJSONSchema(sources[i]));
    const { $schema, title, description, ...rest } = emitted;
    const document = {
      $schema,
      $id: `${SCHEMA_BASE}${source.schema}.schema.json`,
      $comment: `Generated from ${source.module} (${source.name}) ${SCHEMA_BANNER}`,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...rest,
    };
    files.set(`contracts/schemas/${source.schema}.schema.json`, `${JSON.stringify(document, null, 2)}\n`);
  });
  return files;
}

/** Our workspace packages are bundled from source; every other bare import stays external. */
const externalNpmPackages = {
  name: "external-npm-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@amplifier-ts/") ? undefined : { path: args.path, external: true }));
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
