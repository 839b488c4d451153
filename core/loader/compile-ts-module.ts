import { createHash, randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Message, Plugin } from "esbuild";
import { createError } from "@amplifier-ts/contracts";

/**
 * Load-time compilation of `.ts` modules, so a module author needs no build step.
 *
 * The entry is bundled with its local imports inlined; package and node: imports stay imports,
 * but are resolved at compile time to absolute file URLs, so the compiled file works from any
 * folder (including the os.tmpdir() fallback) and shares package instances (amplifier-ts itself,
 * zod …) with the host. Each output is named by the hash of everything that went into it
 * (compiler version, options, every input's path and content): ESM caches modules by URL, so a
 * changed source must get a new URL, and an unchanged one loads from disk without esbuild.
 * Source maps are inlined and Node's source-map support is switched on before import, so stack
 * traces point at the `.ts` lines.
 */
export interface CompiledModule {
  /** The compiled ES module in the cache folder. */
  file: string;
  url: string;
  /** True when the cache answered and esbuild did not run. */
  cached: boolean;
}

export interface CompileOptions {
  /** Defaults to defaultCacheDir(). */
  cacheDir?: string;
}

/** Bump when the build options below change meaning: old cache entries then stop matching. */
const OPTIONS_VERSION = "1";

type Esbuild = typeof import("esbuild");
let esbuildModule: Promise<Esbuild> | undefined;

/**
 * esbuild is an optional peer of @amplifier-ts/core (the umbrella package amplifier-ts installs
 * it): only loading a `.ts` module by path needs it, so a kernel user who loads JavaScript does not
 * pull a native compiler. Missing → MODULE_COMPILE_FAILED saying what to install.
 */
async function loadEsbuild(entry: string): Promise<Esbuild> {
  esbuildModule ??= import("esbuild").catch((cause: unknown) => {
    esbuildModule = undefined;
    throw createError("MODULE_COMPILE_FAILED", "loading a .ts module needs esbuild, which is not installed", {
      file: entry,
      expected: "the package esbuild (an optional peer dependency of @amplifier-ts/core)",
      hint: "npm install esbuild, or build the module to .js first",
      cause,
    });
  });
  return esbuildModule;
}

function compilerId(esbuild: Esbuild): string {
  return `esbuild@${esbuild.version}+amplifier-ts/${OPTIONS_VERSION}`;
}

interface Manifest {
  compiler: string;
  entry: string;
  output: string;
  /** Absolute path → sha256 of the content, for every bundled file. */
  inputs: Record<string, string>;
  /** Absolute files of the packages the output imports; a reinstall that moves them forces a rebuild. */
  externals: string[];
}

export async function compileTsModule(file: string, options: CompileOptions = {}): Promise<CompiledModule> {
  const entry = resolve(file);
  const cacheDir = options.cacheDir ?? (await defaultCacheDir());
  await mkdir(cacheDir, { recursive: true });
  const manifestFile = join(cacheDir, `${sha256(entry).slice(0, 24)}.json`);

  const esbuild = await loadEsbuild(entry);
  const COMPILER_ID = compilerId(esbuild);
  const reused = await reuse(manifestFile, entry, cacheDir, COMPILER_ID);
  if (reused !== undefined) return { file: reused, url: pathToFileURL(reused).href, cached: true };

  const { code, inputs, externals } = await bundle(esbuild, entry, cacheDir);
  const hashes: Record<string, string> = {};
  for (const input of inputs) hashes[input] = sha256(await readFile(input));
  const key = sha256([COMPILER_ID, ...Object.keys(hashes).sort().map((path) => `${path}\0${hashes[path]}`)].join("\n"));
  const output = join(cacheDir, `${key.slice(0, 32)}.mjs`);
  if (!existsSync(output)) await writeAtomically(output, code);
  const manifest: Manifest = { compiler: COMPILER_ID, entry, output, inputs: hashes, externals };
  await writeAtomically(manifestFile, JSON.stringify(manifest));
  return { file: output, url: pathToFileURL(output).href, cached: false };
}

/**
 * `node_modules/.cache/amplifier-ts` of the nearest package (from `cwd` upwards), the convention
 * of babel, eslint and ava; `os.tmpdir()/amplifier-ts-cache` when there is no such folder or it
 * is not writable. Override with AMPLIFIER_TS_CACHE_DIR.
 */
export async function defaultCacheDir(cwd: string = process.cwd()): Promise<string> {
  const fromEnv = process.env.AMPLIFIER_TS_CACHE_DIR;
  if (fromEnv) return resolve(fromEnv);
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, "package.json"))) {
      const nodeModules = join(dir, "node_modules");
      if (isDirectory(nodeModules)) {
        const candidate = join(nodeModules, ".cache", "amplifier-ts");
        try {
          await mkdir(candidate, { recursive: true });
          return candidate;
        } catch {
          break; // read-only install: fall back below
        }
      }
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(tmpdir(), "amplifier-ts-cache");
}

async function reuse(manifestFile: string, entry: string, cacheDir: string, COMPILER_ID: string): Promise<string | undefined> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.compiler !== COMPILER_ID || manifest.entry !== entry || dirname(manifest.output) !== cacheDir) return undefined;
  if (!existsSync(manifest.output) || !manifest.externals.every((file) => existsSync(file))) return undefined;
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    try {
      if (sha256(await readFile(input)) !== hash) return undefined;
    } catch {
      return undefined;
    }
  }
  return manifest.output;
}

async function bundle(esbuild: Esbuild, entry: string, cacheDir: string): Promise<{ code: string; inputs: string[]; externals: string[] }> {
  const workingDir = dirname(entry);
  const externals = new Set<string>();
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: workingDir,
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: `node${process.versions.node.split(".")[0]}`,
      // Only the conditions Node itself applies; esbuild would add "module" by default.
      conditions: [],
      mainFields: ["main"],
      // Placeholder name in the cache folder: makes the source map's relative paths right for the real output.
      outfile: join(cacheDir, "module.mjs"),
      sourcemap: "inline",
      sourcesContent: true,
      keepNames: true,
      metafile: true,
      logLevel: "silent",
      plugins: [externalPackagesAsFileUrls(externals)],
    });
    const code = result.outputFiles[0]?.text ?? "";
    const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(workingDir, input));
    return { code, inputs, externals: [...externals] };
  } catch (error) {
    const messages = ((error as { errors?: Message[] }).errors ?? []).map(formatMessage);
    throw createError("MODULE_COMPILE_FAILED", messages.length > 0 ? messages.join("\n") : String(error), {
      file: entry,
      errors: messages,
      cause: error,
    });
  }
}

const SKIP = Symbol("resolving for amplifier-ts");

/** Bare imports → `file:` URLs of what they resolve to today, marked external (JSON files are bundled). */
function externalPackagesAsFileUrls(externals: Set<string>): Plugin {
  return {
    name: "amplifier-ts:external-packages",
    setup(compiler) {
      compiler.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === SKIP || /^[A-Za-z]:[\\/]/.test(args.path)) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (args.path.startsWith("file:")) return { path: fileURLToPath(args.path) };
        const resolved = await compiler.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: SKIP,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        // A package's JSON file is bundled: as an external file: URL it would lose its
        // `with { type: "json" }` attribute, and Node refuses JSON imported without it.
        if (resolved.path.endsWith(".json")) return { path: resolved.path };
        externals.add(resolved.path);
        return { path: pathToFileURL(resolved.path).href, external: true };
      });
    },
  };
}

function formatMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column + 1}: ` : "";
  return `${where}${message.text}`;
}

async function writeAtomically(file: string, content: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, file);
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
