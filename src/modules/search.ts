// amplifier-ts/modules/search, kept for existing imports: @amplifier-ts/search, and the pgvector
// store from @amplifier-ts/vector-store-postgres.
export * from "@amplifier-ts/search";
export * from "@amplifier-ts/vector-store-postgres";
