// amplifier-ts/adapters: stored messages to and from each provider API (contracts/ADAPTERS.md).
export * from "@amplifier-ts/adapters";
