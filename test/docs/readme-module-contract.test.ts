import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { createSession } from "../../src/session/index.js";
import { describeContextManagerContract } from "../../testing/index.js";
import { readDoc, ROOT } from "./markdown.js";

/**
 * README "Writing and publishing a module": the module it shows (`// my-context.ts`), as written,
 * loaded by path the way its conformance snippet loads it, through the suite that snippet runs
 * (issue 25, item 14: the docs' module must be one that honours the contract it points to).
 */
const doc = readDoc("README.md");
const heading = doc.outside.indexOf("## Writing and publishing a module");
const sample = doc.fences.find((fence) => fence.line > heading && fence.info[0] === "ts" && fence.code.startsWith("// my-context.ts"));
if (sample === undefined) throw new Error('README.md: no "// my-context.ts" block under "Writing and publishing a module"');

const dir = join(ROOT, ".cache", "doc-modules");
mkdirSync(dir, { recursive: true });
const file = join(dir, "readme-my-context.mjs");
writeFileSync(file, transformSync(sample.code, { loader: "ts", format: "esm", target: "es2022", sourcemap: "inline", sourcefile: `README.md:${sample.line}` }).code);

describeContextManagerContract("README's my-context.ts", async () => {
  // Without a greeting: the suite starts from an empty history.
  const session = await createSession({ session: { context: { module: file, config: {} } } });
  return { context: session.context, hooks: session.hooks, close: session.close };
});
