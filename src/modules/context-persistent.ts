// amplifier-ts/modules/context-persistent, kept for existing imports: the package @amplifier-ts/module-context-persistent.
export * from "@amplifier-ts/module-context-persistent";
