// @amplifier-ts/provider-kit: what every provider module shares — the life of one complete() call
// (events, streaming, billed usage, typed errors), so each provider package only converts and calls.
export { runProviderCall, type ApiAnswer, type ApiCall, type ProviderCallOptions } from "./provider-call.js";
