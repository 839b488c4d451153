import { configDefaults, defineConfig } from "vitest/config";

// Property tests run AMPLIFIER_PROPERTY_RUNS cases (CI: 10,000; default 1,000): the time limit
// — a guard against hangs, never a speed check — grows with that factor, so a slow or shared
// machine cannot fail a suite that is merely running more cases.
const runs = Number(process.env.AMPLIFIER_PROPERTY_RUNS) || 1_000;
const timeout = 20_000 * Math.max(1, runs / 1_000);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Fault tests restart the shared servers: they run alone, in vitest.faults.config.ts.
    exclude: [...configDefaults.exclude, "**/*.fault.test.ts"],
    testTimeout: timeout,
    hookTimeout: 20_000,
  },
});
