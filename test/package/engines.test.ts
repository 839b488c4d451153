import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { ROOT, rootManifest, workspacePackages } from "./workspace-manifests.js";

/**
 * What `engines` promises holds for everything it pulls in: for each package of ours, every package
 * its dependencies (and required peers) bring — as the lockfile resolves them, the way npm places
 * them — accepts the oldest Node our `engines` names. A dependency that declares Node >= 22 under a
 * package that says >= 20 is an EBADENGINE warning on install and a broken promise (issue 25.13).
 */
interface LockEntry { version?: string; engines?: { node?: string } | string[]; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>; optionalDependencies?: Record<string, string>; devDependencies?: Record<string, string>; link?: boolean; resolved?: string; os?: string[]; cpu?: string[] }
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };

/** Node's resolution over the lockfile's paths: `<from>/node_modules/<name>`, then each folder above. */
function resolve(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry !== undefined) return entry.link === true ? entry.resolved : candidate;
    if (dir === "") return undefined;
    const at = dir.lastIndexOf("/node_modules/");
    dir = at >= 0 ? dir.slice(0, at) : "";
  }
}

function nodeRange(entry: LockEntry): string | undefined {
  const engines = entry.engines;
  return engines !== undefined && !Array.isArray(engines) ? engines.node : undefined;
}

/** Packages whose engines exclude `oldest`, reached from `start` through what a user installs. */
function violations(start: string, oldest: string, withDev: boolean): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ path: string; via: string[] }> = [{ path: start, via: [] }];
  while (queue.length > 0) {
    const { path, via } = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const entry = lock.packages[path]!;
    // Binaries for other platforms are optional and never installed here (npm skips them by os/cpu).
    if ((entry.os !== undefined || entry.cpu !== undefined) && path !== start) continue;
    const range = nodeRange(entry);
    if (range !== undefined && path !== start && !semver.satisfies(oldest, range)) found.push(`${[...via, path.replace(/^.*node_modules\//, "")].join(" > ")}@${entry.version} wants node ${range}`);
    const names = { ...entry.dependencies, ...(withDev && path === start ? entry.devDependencies : {}) };
    for (const [peer] of Object.entries(entry.peerDependencies ?? {})) if (entry.peerDependenciesMeta?.[peer]?.optional !== true) names[peer] = "*";
    for (const name of Object.keys(names)) {
      const next = resolve(path, name);
      if (next !== undefined) queue.push({ path: next, via: path === start ? [] : [...via, path.replace(/^.*node_modules\//, "")] });
    }
  }
  return found;
}

describe("engines: what each package promises, its dependencies keep", () => {
  const oldestOf = (range: string) => semver.minVersion(range)!.version;

  it("the repository (root, with its dev tools) installs without EBADENGINE on the oldest Node it names", () => {
    const range = (rootManifest() as { engines?: { node?: string } }).engines?.node;
    expect(range, "root package.json engines.node").toBeDefined();
    expect(violations("", oldestOf(range!), true)).toEqual([]);
    expect(semver.satisfies(process.versions.node, range!), `this Node ${process.versions.node} is outside ${range}`).toBe(true);
  });

  it.each(workspacePackages().map((pkg) => [pkg.name, pkg.dir] as const))("%s", (name, dir) => {
    const entry = lock.packages[dir];
    expect(entry, `${dir} in package-lock.json`).toBeDefined();
    const range = nodeRange(entry!);
    expect(range, `${name} declares engines.node`).toBeDefined();
    expect(violations(dir, oldestOf(range!), false)).toEqual([]);
  });
});
