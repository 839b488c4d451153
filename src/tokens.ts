// amplifier-ts/tokens: exact chat-token counting, the model registry (windows, prices) and image
// tokens — the package @amplifier-ts/tokens, which every session offers as the "tokens" capability.
export * from "@amplifier-ts/tokens";
