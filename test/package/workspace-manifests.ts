import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The workspace packages as their manifests declare them (root package.json "workspaces"). */
export interface WorkspacePackage {
  name: string;
  /** Folder relative to the repository root, e.g. "modules/window". */
  dir: string;
  manifest: {
    name: string;
    type?: string;
    main?: string;
    types?: string;
    files?: string[];
    exports?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    devDependencies?: Record<string, string>;
  };
  tsconfig: { references?: Array<{ path: string }> };
}

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function rootManifest(): WorkspacePackage["manifest"] & { workspaces: string[]; bin: Record<string, string> } {
  return JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
}

export function workspacePackages(): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const pattern of rootManifest().workspaces) {
    const dirs = pattern.endsWith("/*")
      ? existsSync(join(ROOT, pattern.slice(0, -2)))
        ? readdirSync(join(ROOT, pattern.slice(0, -2)), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${pattern.slice(0, -2)}/${d.name}`)
        : []
      : [pattern];
    for (const dir of dirs) {
      const manifestFile = join(ROOT, dir, "package.json");
      if (!existsSync(manifestFile)) continue;
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as WorkspacePackage["manifest"];
      const tsconfigFile = join(ROOT, dir, "tsconfig.json");
      const tsconfig = existsSync(tsconfigFile) ? (JSON.parse(readFileSync(tsconfigFile, "utf8")) as WorkspacePackage["tsconfig"]) : {};
      found.push({ name: manifest.name, dir, manifest, tsconfig });
    }
  }
  return found;
}

/** What npm installs with a package: dependencies and peers that are not optional (npm ≥ 7 installs those). */
export function installedWith(manifest: WorkspacePackage["manifest"]): string[] {
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => manifest.peerDependenciesMeta?.[name]?.optional !== true);
  return [...Object.keys(manifest.dependencies ?? {}), ...peers];
}

/** A workspace package and every workspace package it pulls in, transitively. */
export function workspaceClosure(name: string, packages: WorkspacePackage[] = workspacePackages()): Set<string> {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const seen = new Set<string>();
  const visit = (current: string): void => {
    if (seen.has(current)) return;
    seen.add(current);
    const pkg = byName.get(current);
    if (pkg === undefined) return;
    for (const dep of installedWith(pkg.manifest)) if (byName.has(dep)) visit(dep);
  };
  visit(name);
  return seen;
}

/** Every npm package (ours and third parties') a workspace package pulls in through workspace packages. */
export function externalClosure(name: string, packages: WorkspacePackage[] = workspacePackages()): Set<string> {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const external = new Set<string>();
  for (const member of workspaceClosure(name, packages)) {
    for (const dep of installedWith(byName.get(member)!.manifest)) if (!byName.has(dep)) external.add(dep);
  }
  return external;
}
