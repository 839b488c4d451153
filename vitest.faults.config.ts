import { defineConfig } from "vitest/config";
import { sourceConditions } from "./vitest.config.js";

/**
 * Fault tests (`*.fault.test.ts`): they restart PostgreSQL or Redis, so they run one file at a
 * time and never beside the default run (vitest.config.ts excludes them). `npm test` runs this
 * config after the default one.
 */
export default defineConfig({
  ...sourceConditions,
  test: {
    execArgv: ["--conditions=source"],
    globalSetup: ["test/support/build-packages.ts"],
    include: ["test/**/*.fault.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
