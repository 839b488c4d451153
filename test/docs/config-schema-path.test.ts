import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDoc, ROOT, shippedDocs } from "./markdown.js";

/**
 * Issue 25, item 14: a config in the docs is copied into a user's app, where
 * "./contracts/schemas/…" does not exist. Its `$schema` points into the installed package
 * (./node_modules/<package>/<file>), at a file that package has and publishes (its `files`).
 */
const INSTALLED = /^\.\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.+)$/;

describe("the $schema of the docs' configs", () => {
  const schemas = shippedDocs().flatMap((doc) =>
    readDoc(doc)
      .fences.filter((fence) => fence.info[0] === "json")
      .flatMap((fence) => [...fence.code.matchAll(/"\$schema"\s*:\s*"([^"]*)"/g)].map((m) => ({ where: `${doc}:${fence.line}`, schema: m[1]! }))),
  );

  it("are found (the README's configuration)", () => {
    expect(schemas.map((s) => s.where)).toContainEqual(expect.stringMatching(/^README\.md:/));
  });

  it("point at a file the installed package has and publishes", () => {
    const problems = schemas.flatMap(({ where, schema }) => {
      const match = INSTALLED.exec(schema);
      if (match === null) return [`${where} ${schema}: not a path into ./node_modules/<package>/ (a user's app has no ./contracts)`];
      const [, name, file] = match as unknown as [string, string, string];
      const dir = packageDirs().get(name);
      if (dir === undefined) return [`${where} ${schema}: no package named ${name} in this repository`];
      if (!existsSync(join(dir, file))) return [`${where} ${schema}: ${name} has no ${file}`];
      const files = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files?: string[] }).files ?? [];
      const published = files.some((entry) => !entry.startsWith("!") && (file === entry || file.startsWith(`${entry.replace(/\/$/, "")}/`)));
      return published ? [] : [`${where} ${schema}: ${file} is not in ${name}'s published files (${files.join(", ")})`];
    });
    expect(problems).toEqual([]);
  });
});

/** Package name → folder: the root (the umbrella) and every workspace package. */
function packageDirs(): Map<string, string> {
  const dirs = new Map<string, string>();
  const add = (dir: string) => {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) dirs.set((JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name, dir);
  };
  add(ROOT);
  for (const home of ["contracts", "core", "testing"]) add(join(ROOT, home));
  for (const home of ["modules", "hooks"]) for (const entry of readdirSync(join(ROOT, home))) add(join(ROOT, home, entry));
  return dirs;
}
