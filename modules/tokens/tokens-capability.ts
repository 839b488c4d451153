import { getTokenCounter } from "./token-counter.js";

/**
 * Name of the capability through which a session offers exact token counting: a context module
 * that bundles no tokenizer asks `coordinator.getCapability(TOKENS_CAPABILITY)`. The kernel knows
 * no tokenizer; the distribution (the `amplifier-ts` package) registers this one on every session
 * before anything mounts.
 */
export const TOKENS_CAPABILITY = "tokens";

/** What `coordinator.getCapability("tokens")` returns in a session made by amplifier-ts's createSession. */
export interface TokensCapability {
  getTokenCounter: typeof getTokenCounter;
}

/** The capability's value, ready for `coordinator.registerCapability(TOKENS_CAPABILITY, …)`. */
export function tokensCapability(): TokensCapability {
  return { getTokenCounter };
}
