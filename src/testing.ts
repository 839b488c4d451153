// amplifier-ts/testing: the conformance suites, from @amplifier-ts/testing (vitest and fast-check
// are its peer dependencies: install them beside it).
export * from "@amplifier-ts/testing";
