import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * vitest globalSetup: `tsc -b tsconfig.build.json` once before any test file runs (incremental:
 * a second of work when nothing changed). Tests themselves import the packages' TypeScript source
 * (the "source" export condition), but child processes they start — kill -9 writers, the CLI
 * binary, packed-package checks — run Node on the built dist/ of each workspace package, as users do.
 * Then the Inspector's page bundle (esbuild, well under a second).
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export default function buildPackages(): void {
  // A developer iterating on one package while the tree is mid-edit elsewhere may skip the build
  // (tests import source; only child processes use dist/). CI never sets it.
  if (process.env.AMPLIFIER_TEST_SKIP_BUILD === "1") {
    console.warn("build-packages: AMPLIFIER_TEST_SKIP_BUILD=1, dist/ is used as it is");
    return;
  }
  const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
  const build = spawnSync(tsc, ["-b", "tsconfig.build.json"], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  if (build.status !== 0) {
    throw new Error(`tsc -b tsconfig.build.json failed (status ${build.status}):\n${build.stdout}${build.stderr}${build.error ?? ""}`);
  }
  // The Inspector's page bundle (modules/inspector/dist/assets), as `npm run build` makes it.
  const bundle = spawnSync(process.execPath, ["modules/inspector/build-ui.mjs"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  if (bundle.status !== 0) throw new Error(`modules/inspector/build-ui.mjs failed (status ${bundle.status}):\n${bundle.stdout}${bundle.stderr}${bundle.error ?? ""}`);
}
