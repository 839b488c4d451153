import { defineConfig } from "vitest/config";
import { sourceConditions } from "./vitest.config.js";

/**
 * Tests that run a real embedding model (`*.model.test.ts`: modules/embedder-local's Universal
 * Sentence Encoder on TensorFlow.js/WASM). Loading the model takes seconds and a few hundred MB in
 * a worker thread, and inference is CPU-bound: on a shared 2-core machine a batch of texts can take
 * a minute. So they run one file at a time, with generous limits stated here — guards against a
 * hang, never speed checks — and never beside the default run (vitest.config.ts excludes them).
 * `npm test` runs this config as its own stage (tools/run-tests.mjs).
 */
export default defineConfig({
  ...sourceConditions,
  test: {
    execArgv: ["--conditions=source"],
    globalSetup: ["test/support/build-packages.ts"],
    include: ["test/**/*.model.test.ts", "{contracts,core,modules,hooks,testing}/**/*.model.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
