#!/usr/bin/env node
/**
 * A module's JSON Schema, emitted from its own zod config schema, inside its package.
 *
 * A package lists what it emits in its package.json:
 *
 *   "amplifier": { "schemas": [{ "name": "store-blobs.config", "source": "./blob-store-types.ts",
 *                  "export": "storeBlobsEditorSchema", "alias": "contracts/schemas/modules/store-blobs.config.schema.json" }] }
 *
 * `export` names a zod schema, or a function that returns one (or a promise of one): a store
 * module's editor schema is built from its registry; `packages` lists the driver packages its
 * built-in list references, bundled here from source and handed to the function by name. The file is written to
 * `<package>/schemas/<name>.schema.json`; `alias` (repository-relative) gets the same text, so a
 * path users already reference (an amplifier.config.json `$schema`, the umbrella's
 * "./contracts/*.json") keeps working.
 *
 *   node tools/emit-module-schemas.mjs [--check] [package folder …]    (default: every workspace package)
 *
 * `npm run schemas` in a package runs it for that package; `npm run contracts [-- --check]` covers
 * every package's too (tools/contracts.mjs runs contracts/generate.mjs, then this), so CI has one check command.
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { schemaDocument } from "../contracts/emit-schemas.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SCHEMA_BASE = "https://amplifier-ts.dev/schemas/modules/";
const BANNER = "by `npm run schemas` in its package (tools/emit-module-schemas.mjs) — do not edit.";
/** Where the copies at the modules' old schema paths live. */
const ALIAS_DIR = "contracts/schemas/modules";

/** Every package folder (repository-relative) whose package.json lists schemas. */
export async function packagesWithSchemas(root = ROOT) {
  const found = [];
  for (const home of ["contracts", "core", "testing", "modules", "hooks"]) {
    const candidates = home === "modules" || home === "hooks" ? (await readdir(join(root, home), { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => join(home, e.name)) : [home];
    for (const folder of candidates) {
      const manifest = JSON.parse(await readFile(join(root, folder, "package.json"), "utf8").catch(() => "{}"));
      if (Array.isArray(manifest.amplifier?.schemas) && manifest.amplifier.schemas.length > 0) found.push({ folder: toPosix(folder), schemas: manifest.amplifier.schemas });
    }
  }
  return found.sort((a, b) => (a.folder < b.folder ? -1 : 1));
}

/** Map of repository-relative path → exact text, for the given packages (default all); `aliases` lists the alias paths. */
export async function emitModuleSchemas(root = ROOT, folders) {
  const all = await packagesWithSchemas(root);
  const chosen = folders === undefined ? all : all.filter((p) => folders.includes(p.folder));
  const sources = chosen.flatMap((p) => p.schemas.map((s) => ({ ...s, folder: p.folder, module: toPosix(join(p.folder, s.source)) })));
  const files = new Map();
  const aliases = new Set();
  if (sources.length === 0) return { files, aliases };
  const drivers = [...new Set(sources.flatMap((s) => s.packages ?? []))];
  const entry = [
    'import { z } from "zod";',
    ...sources.map((s, i) => `import { ${s.export} as source${i} } from ${JSON.stringify(join(root, s.module))};`),
    ...drivers.map((name, i) => `import * as driver${i} from ${JSON.stringify(name)};`),
    `export const sources = [${sources.map((_, i) => `source${i}`).join(", ")}];`,
    `export const packages = { ${drivers.map((name, i) => `${JSON.stringify(name)}: driver${i}`).join(", ")} };`,
    'export const toJSONSchema = (schema) => z.toJSONSchema(schema, { target: "draft-7", io: "input", unrepresentable: "throw" });',
  ].join("\n");
  const outdir = join(root, ".cache", "module-schemas");
  await mkdir(outdir, { recursive: true });
  const outfile = join(outdir, `schema-sources-${process.pid}.mjs`);
  await build({ stdin: { contents: entry, resolveDir: root, loader: "ts" }, bundle: true, platform: "node", format: "esm", outfile, conditions: ["source"], logLevel: "warning", plugins: [workspaceFromSource] });
  const { sources: loaded, packages, toJSONSchema } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  await rm(outfile, { force: true });
  for (const [i, source] of sources.entries()) {
    const schema = typeof loaded[i] === "function" ? await loaded[i](packages) : loaded[i];
    const text = schemaDocument(toJSONSchema(schema), { id: `${SCHEMA_BASE}${source.name}.schema.json`, comment: `Generated from ${source.module} (${source.export}) ${BANNER}` });
    files.set(`${source.folder}/schemas/${source.name}.schema.json`, text);
    if (source.alias !== undefined) {
      files.set(source.alias, text);
      aliases.add(source.alias);
    }
  }
  return { files, aliases };
}

/** Workspace packages are bundled from their TypeScript source; every other bare import stays external. */
const workspaceFromSource = {
  name: "workspace-from-source",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@amplifier-ts/") ? undefined : { path: args.path, external: true }));
  },
};

function toPosix(path) {
  return path.split(sep).join("/");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const folders = args.filter((a) => a !== "--check").map((folder) => toPosix(relative(ROOT, resolve(folder))));
  const { files, aliases } = await emitModuleSchemas(ROOT, folders.length === 0 ? undefined : folders);
  const stale = [];
  // Over every package: a copy under contracts/schemas/modules/ that no package lists any more is stale too
  // (deleted on write when it carries this tool's banner, so a hand-written file is never removed).
  if (folders.length === 0) {
    const copies = await readdir(join(ROOT, ALIAS_DIR)).catch(() => []);
    for (const name of copies.filter((n) => n.endsWith(".schema.json")).sort()) {
      const file = `${ALIAS_DIR}/${name}`;
      if (aliases.has(file)) continue;
      const text = await readFile(join(ROOT, file), "utf8");
      if (!text.includes(BANNER)) continue;
      stale.push(file);
      if (!check) {
        await rm(join(ROOT, file));
        console.log(`deleted ${file} (no package lists it)`);
      }
    }
  }
  for (const [file, text] of files) {
    const current = await readFile(join(ROOT, file), "utf8").catch(() => undefined);
    if (current === text) continue;
    stale.push(file);
    if (!check) {
      await mkdir(dirname(join(ROOT, file)), { recursive: true });
      await writeFile(join(ROOT, file), text);
      console.log(`wrote ${file}`);
    }
  }
  if (check && stale.length > 0) {
    console.error(`stale module schema(s); run \`npm run contracts\` (or \`npm run schemas\` in the package):\n${stale.map((f) => `  ${f}`).join("\n")}`);
    process.exit(1);
  }
  if (stale.length === 0) console.log(`module schemas up to date (${files.size} files).`);
}
