import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { createSession } from "../../src/session/index.js";
import { describeContextManagerContract } from "../../testing/index.js";
import { readDoc, ROOT } from "../docs/markdown.js";

/**
 * Issue 25, item 14: @amplifier-ts/window's README promises a whole context module, "every window
 * invariant included", in a few dozen lines. Here that block, as written, is a module file loaded
 * by path and put through the conformance suite every context module runs.
 */
const doc = readDoc("modules/window/README.md");
const heading = doc.outside.indexOf("## Toolkit for plugin authors");
const sample = doc.fences.find((fence) => fence.line > heading && fence.info[0] === "ts" && fence.code.includes("export async function mount"));
if (sample === undefined) throw new Error("modules/window/README.md: no module sample under 'Toolkit for plugin authors'");

// Written under the repository, so its imports resolve to our packages as a user's would.
const dir = join(ROOT, ".cache", "doc-modules");
mkdirSync(dir, { recursive: true });
const file = join(dir, "window-readme-context.mjs");
writeFileSync(file, transformSync(sample.code, { loader: "ts", format: "esm", target: "es2022", sourcemap: "inline", sourcefile: `modules/window/README.md:${sample.line}` }).code);

describeContextManagerContract("the sample of modules/window/README.md", async () => {
  const session = await createSession({ session: { context: { module: file } } });
  return { context: session.context, hooks: session.hooks, close: session.close };
});
