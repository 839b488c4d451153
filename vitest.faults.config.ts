import { defineConfig } from "vitest/config";
import { sourceConditions } from "./vitest.config.js";

/**
 * Fault tests (`*.fault.test.ts`): they kill and restart a PostgreSQL or Redis server — always a
 * private one they start themselves (initdb / redis-server in a temp folder, on a free port; see
 * test/stores/private-postgres.ts), never the machine's own — and they are heavy, so they run one
 * file at a time and never beside the default run (vitest.config.ts excludes them). `npm test`
 * runs this config after the default one.
 */
export default defineConfig({
  ...sourceConditions,
  test: {
    execArgv: ["--conditions=source"],
    globalSetup: ["test/support/build-packages.ts"],
    include: ["test/**/*.fault.test.ts", "{contracts,core,modules,hooks,testing}/**/*.fault.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
