// amplifier-ts/modules/strategies, kept for existing imports: the package @amplifier-ts/strategies.
export * from "@amplifier-ts/strategies";
