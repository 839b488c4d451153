/**
 * The Inspector page as HTML: the served shell (its script and style are files of this package,
 * under the Content-Security-Policy `INSPECTOR_CSP`: nothing inline, nothing from elsewhere) and
 * the self-contained report (`replay --html`: script and style inline, allowed by their SHA-256
 * in a CSP meta tag; the session as JSON in a `<script type="application/json">`, which the
 * browser never runs, every `<` written `\u003c` so no message can close the element).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { InspectorReport } from "./inspector-data.js";
import { inspectorErrors } from "./inspector-errors.js";

/** The served page's policy: scripts, styles and data from this server only; no inline script or style. */
export const INSPECTOR_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Where the page's files are served from. */
export const INSPECTOR_ASSET_PATH = "/inspector/assets/";

export interface InspectorAssets {
  js: string;
  css: string;
}

let cached: InspectorAssets | undefined;

/**
 * The bundled page (build-ui.mjs → dist/assets/inspector.js and .css), read once. Found beside the
 * built module (dist/assets) or, when running from source, in the package's dist/assets.
 * INSPECTOR/ASSETS_MISSING when neither exists (the package was not built).
 */
export function inspectorAssets(): InspectorAssets {
  if (cached !== undefined) return cached;
  const candidates = [new URL("./assets/", import.meta.url), new URL("./dist/assets/", import.meta.url)].map((u) => fileURLToPath(u));
  const folder = candidates.find((dir) => existsSync(`${dir}inspector.js`) && existsSync(`${dir}inspector.css`));
  if (folder === undefined) {
    throw inspectorErrors.create("ASSETS_MISSING", `looked in ${candidates.join(" and ")}`, {
      module: "inspector",
      expected: "inspector.js and inspector.css built by `npm run build` (modules/inspector/build-ui.mjs)",
    });
  }
  cached = { js: readFileSync(`${folder}inspector.js`, "utf8"), css: readFileSync(`${folder}inspector.css`, "utf8") };
  return cached;
}

/** The served shell: no data (the page fetches it with the token), no inline code. */
export function inspectorPageHtml(): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<link rel="icon" href="data:,">',
    "<title>amplifier-ts Inspector</title>",
    `<link rel="stylesheet" href="${INSPECTOR_ASSET_PATH}inspector.css">`,
    `<script defer src="${INSPECTOR_ASSET_PATH}inspector.js"></script>`,
    '</head><body><main id="app"><noscript>The Inspector needs JavaScript.</noscript></main></body></html>',
    "",
  ].join("\n");
}

/**
 * One HTML file holding the page, its style and the session: opens from disk with no server and
 * no network. The CSP meta allows exactly the inlined script and style (by hash) and nothing else.
 */
export function reportHtml(report: InspectorReport, assets: InspectorAssets = inspectorAssets()): string {
  const css = assets.css.replace(/<\/style/gi, "<\\/style");
  const js = assets.js;
  if (/<\/script|<!--/i.test(js)) {
    throw inspectorErrors.create("ASSETS_MISSING", "the bundle holds '</script' or '<!--' and cannot be inlined", { module: "inspector", expected: "a bundle without '</script' and '<!--'" });
  }
  const csp = [
    "default-src 'none'",
    `script-src '${sha256(js)}'`,
    `style-src '${sha256(css)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtmlText(report.title)}</title>`,
    `<style>${css}</style>`,
    "</head><body>",
    `<script type="application/json" id="inspector-report">${jsonForScript(report)}</script>`,
    '<main id="app"></main>',
    `<script>${js}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}

/** JSON safe inside a `<script>` element: no `<` (so no `</script>`, no `<!--`), no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

function escapeHtmlText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
