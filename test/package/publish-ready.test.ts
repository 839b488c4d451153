import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, rootManifest, workspacePackages } from "./workspace-manifests.js";

/**
 * Every package is ready for `npm publish` (issue 25.13): what the registry shows (description,
 * README, licence and its text, repository and folder, engines), what the tarball holds (its
 * build, types, README, LICENSE; no tests), scoped packages public, and a README whose install line
 * names this package and the tarballs it needs until publication. `npm pack --dry-run` lists the
 * files exactly as `npm publish` would upload them.
 */
interface Manifest { name: string; description?: string; license?: string; engines?: { node?: string }; repository?: { type?: string; url?: string; directory?: string }; publishConfig?: { access?: string }; main?: string; types?: string; bin?: Record<string, string>; private?: boolean }
const packages = [{ name: "amplifier-ts", dir: "" }, ...workspacePackages().map((pkg) => ({ name: pkg.name, dir: pkg.dir }))];
const rootRepository = (rootManifest() as unknown as Manifest).repository;

/** The files of each package's tarball, by package name: one `npm pack --dry-run` over the workspaces. */
const PACK_TIMEOUT_MS = 300_000;
const packed = new Map<string, string[]>();
beforeAll(() => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--workspaces", "--include-workspace-root"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: PACK_TIMEOUT_MS });
  for (const entry of JSON.parse(out) as Array<{ name: string; files: Array<{ path: string }> }>) packed.set(entry.name, entry.files.map((file) => file.path));
}, PACK_TIMEOUT_MS);

describe("every package is ready to publish", () => {
  it("the root names the repository every package points into", () => {
    expect(rootRepository?.type).toBe("git");
    expect(rootRepository?.url).toMatch(/^git\+https:\/\/.+\.git$/);
  });

  it.each(packages.map((pkg) => [pkg.name, pkg.dir] as const))("%s", (name, dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as Manifest;
    expect(manifest.private, "private").not.toBe(true);
    expect(manifest.description?.length ?? 0, "description").toBeGreaterThan(20);
    expect(manifest.license).toBe("MIT");
    expect(manifest.engines?.node, "engines.node").toMatch(/^>=20/);
    expect(manifest.repository?.url).toBe(rootRepository?.url);
    if (dir !== "") expect(manifest.repository?.directory).toBe(dir);
    if (name.startsWith("@")) expect(manifest.publishConfig?.access, "a scoped package is published public").toBe("public");
    if (manifest.bin !== undefined) for (const target of Object.values(manifest.bin)) expect(target, "npm rewrites a ./ bin path on publish").not.toMatch(/^\.\//);

    const readme = readFileSync(join(ROOT, dir, "README.md"), "utf8");
    expect(readme.startsWith(`# ${name}`), "README starts with the package name").toBe(true);
    if (dir !== "") expect(readme).toContain(`npm i ${name}`);
    expect(readFileSync(join(ROOT, dir, "LICENSE"), "utf8")).toContain("MIT License");

    const files = packed.get(name) ?? [];
    for (const needed of ["package.json", "README.md", "LICENSE", (manifest.main ?? "dist/index.js").replace(/^\.\//, ""), (manifest.types ?? "dist/index.d.ts").replace(/^\.\//, "")]) expect(files, needed).toContain(needed);
    expect(files.filter((file) => /\.test\.[jt]s$|tsbuildinfo$/.test(file))).toEqual([]);
    if (manifest.bin !== undefined) for (const target of Object.values(manifest.bin)) expect(existsSync(join(ROOT, dir, target)) && files.includes(target), target).toBe(true);
  });
});
