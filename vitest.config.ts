import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Fault tests restart the shared servers: they run alone, in vitest.faults.config.ts.
    exclude: [...configDefaults.exclude, "**/*.fault.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
