// @amplifier-ts/module-memory-postgres: agent memory in PostgreSQL, shared by every replica.
import { defineMemoryModule } from "@amplifier-ts/memory-base";
import { memoryPostgresConfigSchema } from "./memory-postgres-config.js";
import { PostgresMemory } from "./postgres-memory.js";

export { memoryPostgresConfigSchema, type MemoryPostgresConfig, type MemoryPostgresOptions } from "./memory-postgres-config.js";
export { DEFAULT_MEMORY_PG_URL, PostgresMemory } from "./postgres-memory.js";

export const { meta, mount } = defineMemoryModule({
  name: "memory-postgres",
  description: "Sessions and typed events in PostgreSQL: durable, one memory for every process on the same url and schema.",
  configSchema: memoryPostgresConfigSchema,
  create: (config) => new PostgresMemory(config),
});
