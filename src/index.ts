// amplifier-ts: the umbrella package. The kernel and every contract (@amplifier-ts/core), the
// replay and the CLI. Built-in modules are packages of their own, reached by name through the
// loader ("context-persistent") or imported from "amplifier-ts/modules/<name>".
export * from "@amplifier-ts/core";
export { runReplay, type ReplayOptions, type ReplayResult, type ReplayTurn, type ReplaySummary } from "./replay/run-replay.js";
export { runCli } from "./cli/run-cli.js";
