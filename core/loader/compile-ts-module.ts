import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Message, Plugin } from "esbuild";
import { createError } from "@amplifier-ts/contracts";
import { defaultCacheDir, notPrivate, privateCacheDir } from "./module-cache-dir.js";

/**
 * Load-time compilation of `.ts` modules, so a module author needs no build step.
 *
 * The entry is bundled with its local imports inlined; package and node: imports stay imports,
 * but are resolved at compile time to absolute file URLs, so the compiled file works from any
 * folder and shares package instances (amplifier-ts itself, zod …) with the host. Each output is named by the hash of everything that went into it
 * (compiler version, options, every input's path and content): ESM caches modules by URL, so a
 * changed source must get a new URL, and an unchanged one loads from disk without esbuild.
 * Source maps are inlined and Node's source-map support is switched on before import, so stack
 * traces point at the `.ts` lines.
 *
 * Importing a cached file runs it, so the cache is trusted only as far as it is checked:
 *
 * | check                                                        | on failure                   |
 * |--------------------------------------------------------------|------------------------------|
 * | the folder is private to the user (module-cache-dir.ts)      | MODULE_CACHE_UNSAFE          |
 * | the manifest and the output are regular files of this user, nobody else may write them | rebuilt, the entry replaced |
 * | every input still hashes as the manifest says                | rebuilt under a new name     |
 * | the output's name is the key recomputed from those inputs and the compiler | rebuilt      |
 * | the output's content hashes as the manifest says (a swapped or torn file) | rebuilt, replaced |
 *
 * Between that last check and Node's import the file could change only by the hand of this user
 * or root: the folder is theirs alone.
 */
export interface CompiledModule {
  /** The compiled ES module in the cache folder. */
  file: string;
  url: string;
  /** True when the cache answered and esbuild did not run. */
  cached: boolean;
}

export interface CompileOptions {
  /** Defaults to defaultCacheDir(); either way it must be private to the user (MODULE_CACHE_UNSAFE otherwise). */
  cacheDir?: string;
}

/** Bump when the build options below change meaning: old cache entries then stop matching. */
const OPTIONS_VERSION = "2";

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

/** Everything besides the inputs that decides the output: compiler, our options, the target Node. */
function compilerId(esbuild: Esbuild): string {
  return `esbuild@${esbuild.version}+amplifier-ts/${OPTIONS_VERSION}+node${process.versions.node.split(".")[0]}`;
}

interface Manifest {
  compiler: string;
  entry: string;
  output: string;
  /** Absolute path → sha256 of the content, for every bundled file. */
  inputs: Record<string, string>;
  /** Absolute files of the packages the output imports; a reinstall that moves them forces a rebuild. */
  externals: string[];
  /** sha256 of the output's content, checked before every reuse. */
  outputHash: string;
}

export async function compileTsModule(file: string, options: CompileOptions = {}): Promise<CompiledModule> {
  const entry = resolve(file);
  const cacheDir = options.cacheDir === undefined ? await defaultCacheDir() : await privateCacheDir(resolve(options.cacheDir));
  const manifestFile = join(cacheDir, `${sha256(entry).slice(0, 24)}.json`);

  const esbuild = await loadEsbuild(entry);
  const COMPILER_ID = compilerId(esbuild);
  const reused = await reuse(manifestFile, entry, cacheDir, COMPILER_ID);
  if (reused !== undefined) return { file: reused, url: pathToFileURL(reused).href, cached: true };

  const { code, inputs, externals } = await bundle(esbuild, entry, cacheDir);
  const hashes: Record<string, string> = {};
  for (const input of inputs) hashes[input] = sha256(await readFile(input));
  const output = outputFile(cacheDir, COMPILER_ID, hashes);
  const outputHash = sha256(code);
  // An existing entry is kept only when it is ours and holds exactly this code.
  if ((await readTrusted(output).then((text) => (text === undefined ? undefined : sha256(text)))) !== outputHash) await writeAtomically(output, code);
  const manifest: Manifest = { compiler: COMPILER_ID, entry, output, inputs: hashes, externals, outputHash };
  await writeAtomically(manifestFile, JSON.stringify(manifest));
  return { file: output, url: pathToFileURL(output).href, cached: false };
}

/** The output's name: the hash of the compiler id and of every input's path and content. */
function outputFile(cacheDir: string, compiler: string, hashes: Record<string, string>): string {
  const key = sha256([compiler, ...Object.keys(hashes).sort().map((path) => `${path}\0${hashes[path]}`)].join("\n"));
  return join(cacheDir, `${key.slice(0, 32)}.mjs`);
}

/** The cached output to import, or undefined when any check of the table above fails. */
async function reuse(manifestFile: string, entry: string, cacheDir: string, COMPILER_ID: string): Promise<string | undefined> {
  let manifest: Manifest;
  try {
    const text = await readTrusted(manifestFile);
    if (text === undefined) return undefined;
    manifest = JSON.parse(text) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.compiler !== COMPILER_ID || manifest.entry !== entry || typeof manifest.outputHash !== "string") return undefined;
  if (typeof manifest.inputs !== "object" || manifest.inputs === null || !Array.isArray(manifest.externals)) return undefined;
  if (!manifest.externals.every((file) => typeof file === "string" && existsSync(file))) return undefined;
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    try {
      if (sha256(await readFile(input)) !== hash) return undefined;
    } catch {
      return undefined;
    }
  }
  const output = outputFile(cacheDir, COMPILER_ID, manifest.inputs);
  if (manifest.output !== output) return undefined;
  const code = await readTrusted(output);
  return code !== undefined && sha256(code) === manifest.outputHash ? output : undefined;
}

/** A cache file's text, or undefined when it is absent or not a private file of this user. */
async function readTrusted(file: string): Promise<string | undefined> {
  try {
    if ((await notPrivate(file, "file")) !== undefined) return undefined;
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
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

/** Temp file (exclusive, 0600) then rename: readers see the old entry or the whole new one; a foreign entry is replaced. */
async function writeAtomically(file: string, content: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, content, { mode: 0o600, flag: "wx" });
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
