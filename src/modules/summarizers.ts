// amplifier-ts/modules/summarizers, kept for existing imports: the package @amplifier-ts/summarizers.
export * from "@amplifier-ts/summarizers";
