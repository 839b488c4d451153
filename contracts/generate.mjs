#!/usr/bin/env node
/**
 * Every derived form of the contracts' schemas, from their one source, zod; it reads only files
 * under contracts/ (`npm run contracts`, tools/contracts.mjs, runs this and then the modules' step).
 *
 *   1. contracts/schemas/*.schema.json (JSON Schema, for editors and other languages) from the zod
 *      schemas listed in contracts/emit-schemas.mjs (z.toJSONSchema);
 *   2. contracts/generated/** (TypeScript types) from those JSON Schemas (json-schema-to-typescript),
 *      except contracts/schemas/modules/: copies of module config schemas, typed by their modules.
 *
 *   node contracts/generate.mjs            write both
 *   node contracts/generate.mjs --check    write nothing; list stale files and exit 1 if any
 *   node contracts/generate.mjs --root DIR step 2 only, on DIR/contracts/{schemas,generated}
 *                                          (tests use this on scratch copies without zod sources)
 *
 * contracts/schemas/<path>.schema.json becomes contracts/generated/<path>.ts, and
 * contracts/generated/index.ts re-exports every generated type by name (two schemas declaring the
 * same type name is an error, not a silent shadowing). Output is deterministic: files are visited
 * in sorted order and the banner carries no date, so `--check` can compare byte for byte.
 * Generated files no schema produces any more are stale too; they are deleted on write, but only
 * when they carry our banner, so a hand-written file is never removed.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";
import { emitSchemas } from "./emit-schemas.mjs";

const SCHEMA_SUFFIX = ".schema.json";
const BANNER_MARK = "by `npm run contracts` (contracts/generate.mjs) — do not edit.";

const args = process.argv.slice(2);
const check = args.includes("--check");
const rootIndex = args.indexOf("--root");
const root = rootIndex >= 0 ? resolve(args[rootIndex + 1] ?? ".") : resolve(dirname(fileURLToPath(import.meta.url)), "..");
const unknownArgs = args.filter((a, i) => a !== "--check" && a !== "--root" && !(rootIndex >= 0 && i === rootIndex + 1));
if (unknownArgs.length > 0) fail(`unknown argument(s): ${unknownArgs.join(" ")}\nusage: node contracts/generate.mjs [--check] [--root DIR]`);

const schemasDir = join(root, "contracts", "schemas");
const generatedDir = join(root, "contracts", "generated");

// Step 1 (the repository only): JSON Schemas from zod. In check mode the files on disk must equal
// what zod emits; step 2 then reads them as they are.
const emitted = rootIndex >= 0 ? new Map() : await emitSchemas(root);
// contracts/schemas/modules/ holds copies of the modules' config schemas (written by
// tools/emit-module-schemas.mjs, kept where users' `$schema` URLs point): module options, so
// contracts generates no types from them (each module exports its own).
const MODULE_COPIES = "modules/";
const staleSchemas = [];
for (const [file, text] of emitted) {
  const current = await readFile(join(root, file), "utf8").catch(() => undefined);
  if (current === text) continue;
  staleSchemas.push({ file, why: current === undefined ? "missing" : "differs from its zod source" });
  if (!check) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
    console.log(`wrote ${file}`);
  }
}

const expected = await expectedOutputs();
const stale = [...(check ? staleSchemas : []), ...(await staleFiles(expected))];

if (check) {
  if (stale.length > 0) {
    console.error(`contracts/schemas or contracts/generated is stale (${stale.length} file(s)); run \`npm run contracts\`:`);
    for (const { file, why } of stale) console.error(`  ${file}  (${why})`);
    process.exit(1);
  }
  console.log(`contracts/schemas and contracts/generated are up to date (${emitted.size} + ${expected.size} files).`);
} else {
  for (const { file, why } of stale) {
    const absolute = join(root, file);
    if (why === "no schema generates it") await rm(absolute);
    else {
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(absolute, expected.get(file));
    }
    console.log(`${why === "no schema generates it" ? "deleted" : "wrote"} ${file}`);
  }
  if (stale.length === 0) console.log(`contracts/generated is up to date (${expected.size} files).`);
}

/** Map of repo-relative output path → exact file text. */
async function expectedOutputs() {
  const outputs = new Map();
  const exportsByFile = [];
  for (const schemaPath of await schemaFiles()) {
    const rel = toPosix(relative(schemasDir, schemaPath));
    const stem = rel.slice(0, -SCHEMA_SUFFIX.length);
    const schema = JSON.parse(await readFile(schemaPath, "utf8"));
    const code = await compile(markUntypedAsUnknown(schema), schema.title ?? stem, {
      cwd: dirname(schemaPath),
      bannerComment: banner(`contracts/schemas/${rel}`),
      // Array lengths are a runtime rule (the validators check them); a `minItems: 1` must not
      // turn `ToolCall[]` into a tuple type that every caller then has to satisfy.
      ignoreMinAndMaxItems: true,
    });
    outputs.set(`contracts/generated/${stem}.ts`, code);
    exportsByFile.push({ module: `./${stem}.js`, names: exportedNames(code), schema: rel });
  }
  outputs.set("contracts/generated/index.ts", indexFile(exportsByFile));
  return outputs;
}

/** Every output that is missing, different, or no longer generated. */
async function staleFiles(outputs) {
  const stale = [];
  for (const [file, text] of outputs) {
    const current = await readFile(join(root, file), "utf8").catch(() => undefined);
    if (current === undefined) stale.push({ file, why: "missing" });
    else if (current !== text) stale.push({ file, why: "differs from its schema" });
  }
  for (const file of await listFiles(generatedDir, (name) => name.endsWith(".ts"))) {
    const repoRelative = toPosix(relative(root, file));
    if (outputs.has(repoRelative)) continue;
    const text = await readFile(file, "utf8");
    if (text.includes(BANNER_MARK)) stale.push({ file: repoRelative, why: "no schema generates it" });
  }
  return stale.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

async function schemaFiles() {
  const files = (await listFiles(schemasDir, (name) => name.endsWith(SCHEMA_SUFFIX))).filter((file) => !toPosix(relative(schemasDir, file)).startsWith(MODULE_COPIES));
  if (files.length === 0) fail(`no *${SCHEMA_SUFFIX} files under ${schemasDir}`);
  return files;
}

async function listFiles(dir, keep) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name)) // parentPath: Node ≥ 20.12
    .sort();
}

function banner(source) {
  return [
    "/* eslint-disable */",
    "/**",
    ` * Generated from ${source} ${BANNER_MARK}`,
    " * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run",
    " * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.",
    " */",
  ].join("\n");
}

function indexFile(files) {
  const owner = new Map();
  const lines = [banner("contracts/schemas/**"), ""];
  for (const { module, names, schema } of files) {
    for (const name of names) {
      if (owner.has(name)) fail(`type ${name} is declared by both ${owner.get(name)} and ${schema}; give one of them another title`);
      owner.set(name, schema);
    }
    if (names.length > 0) lines.push(`export type { ${names.join(", ")} } from "${module}";`);
  }
  return `${lines.join("\n")}\n`;
}

function exportedNames(code) {
  return [...code.matchAll(/^export (?:type|interface) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]).sort();
}

/**
 * json-schema-to-typescript types a subschema that carries only annotations (`{ "description": … }`)
 * as an object, although JSON Schema lets it hold any value. Mark such subschemas `tsType: unknown`
 * on an in-memory copy, so the schema files stay plain draft-07 (ajv strict mode accepts them).
 */
function markUntypedAsUnknown(schema) {
  const ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment", "readOnly", "writeOnly", "deprecated"]);
  const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependencies"];
  const SCHEMA_SLOTS = ["additionalProperties", "additionalItems", "items", "contains", "propertyNames", "if", "then", "else", "not"];
  const SCHEMA_LISTS = ["anyOf", "allOf", "oneOf", "items"];

  const visit = (node) => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const keys = Object.keys(node);
    if (keys.length > 0 && keys.every((key) => ANNOTATIONS.has(key))) return { ...node, tsType: "unknown" };
    const copy = { ...node };
    for (const key of SCHEMA_MAPS) {
      if (copy[key] && typeof copy[key] === "object" && !Array.isArray(copy[key])) {
        copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([name, sub]) => [name, visit(sub)]));
      }
    }
    for (const key of SCHEMA_SLOTS) if (key in copy && !Array.isArray(copy[key])) copy[key] = visit(copy[key]);
    for (const key of SCHEMA_LISTS) if (Array.isArray(copy[key])) copy[key] = copy[key].map(visit);
    return copy;
  };
  return visit(schema);
}

function toPosix(path) {
  return path.split(sep).join("/");
}

function fail(message) {
  console.error(`contracts/generate.mjs: ${message}`);
  process.exit(2);
}
