/**
 * The kernel names no module: core's source (code and comments) holds no package name of a module
 * or hook, and no module's short name as a string. The layering check (dependency-cruiser) sees
 * imports only; a name in a string — a built-in table, a default config, `memory-${type}` — is
 * policy that imports nothing, and this test is what keeps it out. The distribution (the umbrella
 * package, src/) owns those names; core keeps the mechanism (loader/module-names.ts), whose only
 * knowledge is the naming convention's prefix.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MOUNT_ORDER } from "../loader/plan-modules.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CORE = join(ROOT, "core");

/** Every module and hook package: its npm name and its folder name (the short name configs use). */
function modulePackages(): { name: string; folder: string }[] {
  const found: { name: string; folder: string }[] = [];
  for (const home of ["modules", "hooks"]) {
    for (const folder of readdirSync(join(ROOT, home))) {
      const manifest = JSON.parse(readFileSync(join(ROOT, home, folder, "package.json"), "utf8")) as { name: string };
      found.push({ name: manifest.name, folder });
    }
  }
  return found;
}

/** core's own source files (its tests and build output aside). */
function coreSources(dir = CORE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ["dist", "node_modules", "test"].includes(entry.name) ? [] : coreSources(path);
    return /\.(ts|mts|js|mjs|json)$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * What core may not say: a module package's name; a concrete `@amplifier-ts/module-<x>`; a module's
 * short name in quotes. The config's sections ("context", "stores", …: MOUNT_ORDER) are the
 * contract's vocabulary, not module names, even where a package shares the word.
 */
export function forbiddenNames(): { label: string; pattern: RegExp }[] {
  const packages = modulePackages();
  const sections = new Set<string>(MOUNT_ORDER);
  const shortNames = new Set(packages.flatMap(({ name, folder }) => [folder, name.replace(/^@amplifier-ts\/(module-)?/, "")]).filter((short) => !sections.has(short)));
  return [
    ...packages.map(({ name }) => ({ label: name, pattern: new RegExp(`${escape(name)}(?![a-z0-9-])`) })),
    { label: "@amplifier-ts/module-<name>", pattern: /@amplifier-ts\/module-[a-z0-9]/ },
    ...[...shortNames].map((short) => ({ label: `"${short}"`, pattern: new RegExp(`["'\`]${escape(short)}["'\`]`) })),
  ];
}

/** Every line of `files` that names a module, as `file:line: label`. */
export function namingLines(files: string[], patterns = forbiddenNames()): string[] {
  const hits: string[] = [];
  for (const file of files) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        for (const { label, pattern } of patterns) if (pattern.test(line)) hits.push(`${relative(ROOT, file)}:${index + 1}: ${label}`);
      });
  }
  return hits;
}

describe("core names no module", () => {
  it("reads core's source and the module packages (the check is not vacuous)", () => {
    expect(coreSources().length).toBeGreaterThan(30);
    expect(modulePackages().map((p) => p.name)).toEqual(expect.arrayContaining(["@amplifier-ts/tokens", "@amplifier-ts/module-context-simple"]));
  });

  it("no file of core holds a module's package name or quotes a module's short name", () => {
    expect(namingLines(coreSources())).toEqual([]);
  });
});
