import { configDefaults, defineConfig } from "vitest/config";

// The time limit is a guard against hangs, never a speed check. Its base is what the slowest
// fixed-work test needs on a shared 2-core machine with another CPU-heavy job beside it, with room
// (the cold-history property takes 4 s alone and over 20 s so loaded: 20 s failed it). Property
// tests run AMPLIFIER_PROPERTY_RUNS cases (CI: 10,000; default 1,000): the limit grows with that
// factor, so a slow machine cannot fail a suite that is merely running more cases.
const runs = Number(process.env.AMPLIFIER_PROPERTY_RUNS) || 1_000;
const BASE_TIMEOUT_MS = 60_000;
const timeout = BASE_TIMEOUT_MS * Math.max(1, runs / 1_000);

// The workspace packages export their TypeScript source under the "source" condition: vitest
// resolves it (no build needed to test), and the module loader — which resolves packages itself,
// as Node would — sees it through --conditions in the workers' execArgv.
export const sourceConditions = {
  // Vite's defaults (defaultClientConditions / defaultServerConditions) with "source" first.
  resolve: { conditions: ["source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["source", "module", "node", "development|production"] } },
};

export default defineConfig({
  ...sourceConditions,
  test: {
    execArgv: ["--conditions=source"],
    globalSetup: ["test/support/build-packages.ts"],
    // Cross-package and end-to-end suites live in test/; a package's own tests live beside it
    // (modules/<name>/test/, core/test/, …) so the package can be read and moved alone.
    include: ["test/**/*.test.ts", "{contracts,core,modules,hooks,testing}/**/*.test.ts"],
    // Fault tests restart servers: they run alone, in vitest.faults.config.ts; tests of a real
    // embedding model load it for seconds: vitest.model.config.ts.
    exclude: [...configDefaults.exclude, "**/dist/**", "**/*.fault.test.ts", "**/*.model.test.ts"],
    testTimeout: timeout,
    hookTimeout: BASE_TIMEOUT_MS,
    // eventsource-parser (under the `ai` SDK) exports TypeScript source under "source" too: the
    // packages that import it go through vite, which transforms it, instead of Node loading .ts.
    server: { deps: { inline: [/node_modules\/ai\//, /node_modules\/@ai-sdk\//, /node_modules\/eventsource-parser\//] } },
  },
});
