// @amplifier-ts/vector-store-postgres: a VectorStore in PostgreSQL with pgvector (driver: pg).
export { PgVectorStore, type PgVectorStoreOptions } from "./pgvector-store.js";
export { postgresVectorStore } from "./pgvector-store-definition.js";
