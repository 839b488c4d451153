// Bundles the Inspector page (ui/main.ts: Preact, uPlot, the view models) and its CSS into
// dist/assets/ — at build time, so the page fetches nothing from anywhere but its own server
// and the report can inline both. Run by the root `npm run build` and before `npm pack`.
import { build } from "esbuild";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const out = `${here}dist/assets/`;

export async function buildInspectorAssets() {
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: [`${here}ui/main.ts`],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    legalComments: "none",
    outfile: `${out}inspector.js`,
    logLevel: "warning",
  });
  const uplotCss = await readFile(fileURLToPath(import.meta.resolve("uplot/dist/uPlot.min.css")), "utf8");
  const ownCss = await readFile(`${here}ui/inspector.css`, "utf8");
  await writeFile(`${out}inspector.css`, `${uplotCss}\n${ownCss}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildInspectorAssets();
