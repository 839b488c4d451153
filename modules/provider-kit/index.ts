// @amplifier-ts/provider-kit: what every provider module shares — the life of one complete() call
// (events, streaming, billed usage, typed errors, the call's clock), so each provider package only converts and calls.
export { runProviderCall, type ApiAnswer, type ApiCall, type ProviderCallOptions } from "./provider-call.js";
export { watchedFetch, type CallTimeouts, type TimeoutPhase } from "./call-watch.js";
export { usageReport, checkUsage, type UsageReport, type UsageProblem } from "./usage-report.js";
export { providerErrorFrom } from "./provider-error-from.js";
