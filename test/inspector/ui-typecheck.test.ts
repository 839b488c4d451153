import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/**
 * The page's sources (modules/inspector/ui) are browser code: they type-check in a program of
 * their own with the DOM library (ui/tsconfig.json), kept out of the repository's Node program —
 * where the DOM's globals would change the types other packages' sources are checked against.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("the Inspector page's sources type-check under strict with the DOM library", () => {
  const tsc = join(ROOT, "node_modules", ".bin", "tsc");
  const run = spawnSync(tsc, ["-p", "modules/inspector/ui/tsconfig.json"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
});
