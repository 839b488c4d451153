import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The page's bundle is part of the package: `npm run build` (and vitest's build step) writes
 * modules/inspector/dist/assets, `npm pack` ships it, and the built package finds it beside itself.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("@amplifier-ts/inspector as packed", () => {
  it("ships the bundled page (dist/assets/inspector.js and .css) and no page source", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--workspace", "@amplifier-ts/inspector"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string; size: number }> }>)[0]!.files;
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(["dist/assets/inspector.js", "dist/assets/inspector.css", "dist/index.js", "dist/index.d.ts"]));
    expect(files.find((f) => f.path === "dist/assets/inspector.js")!.size).toBeGreaterThan(20_000);
    expect(paths.filter((p) => p.startsWith("ui/") || p.endsWith(".test.ts"))).toEqual([]);
  });

  it("the built package finds its bundle beside itself, and the page holds no inline code", () => {
    const probe = [
      "const m = await import('./modules/inspector/dist/index.js');",
      "const a = m.inspectorAssets();",
      "console.log(JSON.stringify({ js: a.js.length, css: a.css.length, page: m.inspectorPageHtml() }));",
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { js: number; css: number; page: string };
    expect(result.js).toBeGreaterThan(20_000);
    expect(result.css).toBeGreaterThan(1_000);
    expect(result.page).not.toMatch(/<script>|<style|\son\w+=/i);
  });
});
