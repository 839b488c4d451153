import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * contracts/ is the bottom layer: it imports nothing of ours, its generator reads nothing but
 * contracts/, and it holds no module's options (each module owns its config schema and types).
 * `npm run check:layers` checks the TypeScript imports; these checks also cover the generator
 * scripts (contracts/*.mjs, which check:layers skips) and the names contracts export.
 */
const CONTRACTS = fileURLToPath(new URL("../", import.meta.url));
const REPO = resolve(CONTRACTS, "..");
const NOT_SOURCE = /(^|\/)(node_modules|dist|test)(\/|$)/;

/** Every source file of contracts (repository-relative, posix), tests and builds excluded. */
function contractSources(): string[] {
  return readdirSync(CONTRACTS, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((path) => !NOT_SOURCE.test(path.slice("contracts/".length)))
    .sort();
}

/** Static and dynamic import specifiers of a source text. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm)) found.push(match[1]!);
  return found;
}

/** Module folder name → the PascalCase stem its option names would carry (memory-local → MemoryLocal). */
const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/**
 * Names that look like a module's options and are contract shapes: the "stores" section of
 * amplifier.config.json (the config contract's own), and the options of a HistorySearch.search call.
 */
const CONFIG_CONTRACT_NAMES = new Set(["StoresConfig", "storesConfigSchema", "SearchOptions"]);

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("contracts stand alone", () => {
  it("import nothing of ours: no @amplifier-ts package, no umbrella, no relative path out of contracts/", () => {
    const violations: string[] = [];
    for (const file of contractSources()) {
      for (const specifier of specifiers(readFileSync(join(REPO, file), "utf8"))) {
        if (/^(@amplifier-ts\/|amplifier-ts(\/|$))/.test(specifier)) violations.push(`${file} imports ${specifier}`);
        if (specifier.startsWith(".")) {
          const target = relative(REPO, resolve(REPO, dirname(file), specifier)).split(sep).join("/");
          if (!target.startsWith("contracts/")) violations.push(`${file} imports ${specifier} (${target})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("the generator (contracts/*.mjs) reads nothing outside contracts/: it checks clean on a copy of contracts/ alone", () => {
    const root = mkdtempSync(join(tmpdir(), "amplifier-contracts-alone-"));
    scratch.push(root);
    cpSync(CONTRACTS, join(root, "contracts"), { recursive: true, filter: (source) => !NOT_SOURCE.test(relative(CONTRACTS, source).split(sep).join("/")) });
    symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
    const result = spawnSync(process.execPath, [join(root, "contracts", "generate.mjs"), "--check"], { cwd: root, encoding: "utf8" });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it("hold no module's options: no module's config/options schema or type, no generated module types", async () => {
    const modules = ["modules", "hooks"].flatMap((home) => (existsSync(join(REPO, home)) ? readdirSync(join(REPO, home)) : []));
    const stems = new Set(modules.map(pascal));
    const exported = contractSources().flatMap((file) =>
      [...readFileSync(join(REPO, file), "utf8").matchAll(/export\s+(?:declare\s+)?(?:type|interface|const|function|class|enum)\s+([A-Za-z0-9_]+)/g)].map((m) => ({ file, name: m[1]! })),
    );
    const optionNames = exported.filter(({ name }) => {
      const match = /^(.+?)(Config|ConfigSchema|Options|OptionsSchema)$/.exec(name);
      return match !== null && !CONFIG_CONTRACT_NAMES.has(name) && stems.has(pascal(match[1]!.replace(/^[a-z]/, (c) => c.toUpperCase())));
    });
    expect(optionNames.map(({ file, name }) => `${file}: ${name}`)).toEqual([]);
    const moduleFiles = contractSources().filter((file) => /(^|\/)[^/]*-(config|options)(-schema)?\.(ts|mjs)$/.test(file) && !file.endsWith("/amplifier-config.ts"));
    expect(moduleFiles, "a file named after a config or options schema").toEqual([]);
    expect(contractSources().filter((file) => file.startsWith("contracts/generated/modules/"))).toEqual([]);
    // @ts-expect-error — a plain .mjs tool without type declarations
    const { SCHEMA_SOURCES } = (await import("../emit-schemas.mjs")) as { SCHEMA_SOURCES: Array<{ module: string }> };
    expect(SCHEMA_SOURCES.map((s) => s.module).filter((module) => !module.startsWith("contracts/"))).toEqual([]);
  });
});
