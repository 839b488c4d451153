/**
 * The layering of the house, checked in CI (`npm run check:layers` → tools/check-layers.mjs, run by
 * .ci/run and by test/package/workspaces.test.ts):
 *
 *   contracts  ←  core  ←  modules/*, hooks/*  ←  src (the umbrella amplifier-ts)
 *       ↖ modules/tokens ↗      ↖ testing
 *
 * (modules/tokens stands on the ground floor beside contracts: it imports only contracts, and
 * core does not import it — the umbrella offers it to sessions as the "tokens" capability.)
 *
 * Packages reach each other only through their package names (node_modules/@amplifier-ts/<x>,
 * i.e. their public entries), and only packages their own package.json declares. Symlinks are
 * preserved, so an import of a workspace package resolves to node_modules/@amplifier-ts/<x>/… and
 * a relative import that leaves its package resolves to the other package's folder: both are
 * visible to the rules below. Cycles between packages cannot pass: an import must be a declared
 * dependency, and test/package/workspaces.test.ts proves the declared graph acyclic.
 */
const WORKSPACE = "^node_modules/@amplifier-ts/";
const HOMES = "(contracts|core|testing|src)";

module.exports = {
  forbidden: [
    {
      name: "contracts-import-nothing-of-ours",
      comment: "contracts/ is the language-neutral bottom layer: it imports no package of ours and no other folder.",
      severity: "error",
      from: { path: "^contracts/" },
      to: { path: [`${WORKSPACE}`, "^node_modules/amplifier-ts/", "^(core|modules|hooks|testing|src|examples)/"] },
    },
    {
      name: "core-is-mechanism",
      comment: "core/ imports only @amplifier-ts/contracts of ours: no @amplifier-ts/tokens, no module, hook, testing or umbrella code (policy is loaded by name, never imported). core/test/names-no-module.test.ts checks that core's source does not even name a module.",
      severity: "error",
      from: { path: "^core/" },
      to: { path: [`${WORKSPACE}(?!contracts/)`, "^node_modules/amplifier-ts/", "^(modules|hooks|testing|src|examples)/"] },
    },
    {
      name: "tokens-imports-only-contracts",
      comment: "@amplifier-ts/tokens is on the ground floor beside contracts: counting needs no kernel, so a window engine or a drop-in for another framework can count without core.",
      severity: "error",
      from: { path: "^modules/tokens/" },
      to: { path: [`${WORKSPACE}(?!contracts/)`, "^node_modules/amplifier-ts/", "^(core|hooks|testing|src|examples)/", "^modules/(?!tokens/)"] },
    },
    {
      name: "window-stands-alone",
      comment: "@amplifier-ts/window is the engine fitWindow users install alone (README, 'Drop-in for your framework'): it imports contracts, tokens and adapters of ours and no npm package — no server driver, no provider SDK, no framework (frameworks' messages are read by duck typing).",
      severity: "error",
      from: { path: "^modules/window/" },
      to: { path: [`${WORKSPACE}(?!contracts/|tokens/|adapters/|window/)`, "^node_modules/(?!@amplifier-ts/)", "^(core|hooks|testing|src|examples)/", "^modules/(?!window/|tokens/|adapters/)"] },
    },
    {
      name: "testing-sits-on-contracts-and-core",
      comment: "@amplifier-ts/testing checks implementations; it depends on no module (token counting aside: the suites count windows exactly).",
      severity: "error",
      from: { path: "^testing/" },
      to: { path: [`${WORKSPACE}(?!contracts/|core/|tokens/)`, "^node_modules/amplifier-ts/"] },
    },
    {
      name: "modules-and-hooks-not-above-themselves",
      comment: "Modules and hooks never import the umbrella package or the conformance suites.",
      severity: "error",
      from: { path: "^(modules|hooks)/" },
      to: { path: [`${WORKSPACE}testing/`, "^node_modules/amplifier-ts/", "^(src|testing|examples)/"] },
    },
    {
      name: "packages-meet-by-name",
      comment: "A relative import must stay inside its own package: another package is imported by its name (its public entry).",
      severity: "error",
      from: { path: `^${HOMES}/` },
      to: { path: "^(contracts|core|testing|src|modules|hooks)/", pathNot: "^$1/" },
    },
    {
      name: "examples-use-the-umbrella-as-users-do",
      comment: "Examples import amplifier-ts (its package entries, reached by self-reference), never a folder's internals.",
      severity: "error",
      from: { path: "^examples/" },
      to: { path: "^(contracts|core|testing|modules|hooks|src)/", pathNot: "^src/(index|testing|modules/[^/]+)\\.ts$" },
    },
    {
      name: "module-packages-meet-by-name",
      comment: "A relative import must stay inside its own module or hook package.",
      severity: "error",
      from: { path: "^(modules|hooks)/([^/]+)/" },
      to: { path: "^(contracts|core|testing|src|modules|hooks)/", pathNot: "^$1/$2/" },
    },
    {
      name: "declared-dependencies-only",
      comment: "Every package imported is declared in the importing package's own package.json (dependencies or peerDependencies).",
      severity: "error",
      // A declared peer (esbuild for core, the conformance suites for the umbrella) also counts.
      // A package's build-ui.mjs (the Inspector's page bundler) uses the root's esbuild, a build tool.
      from: { pathNot: "^modules/[^/]+/build-ui\\.mjs$" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown", "npm-dev"], dependencyTypesNot: ["npm-peer"] },
    },
    {
      name: "no-circular",
      comment: "No import cycles inside a package (a type-only import is no cycle at run time).",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    preserveSymlinks: true,
    // Package sources only (tests, fixtures and the third-party example sit outside the layering).
    includeOnly: ["^(contracts|core|testing|modules|hooks|src|examples)/", "^node_modules/"],
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["(^|/)dist/", "\\.test\\.ts$", "\\.test-d\\.ts$", "^examples/third-party-plugin/"] },
    combinedDependencies: false,
    // The TypeScript sources are read as JavaScript: tools/check-layers.mjs mirrors them under
    // .cache/layers (babel, type-only imports kept) and runs this config there.
    enhancedResolveOptions: {
      conditionNames: ["source", "import", "node", "default"],
      exportsFields: ["exports"],
      mainFields: ["main", "types"],
      extensions: [".js", ".ts", ".d.ts", ".mjs", ".json"],
    },
  },
};
