// amplifier-ts/modules/context-simple, kept for existing imports: the package @amplifier-ts/module-context-simple.
export * from "@amplifier-ts/module-context-simple";
