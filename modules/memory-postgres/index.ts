// @amplifier-ts/module-memory-postgres: agent memory in PostgreSQL, shared by every replica.
import type { CoordinatorContract, MemoryPostgresOptions, ModuleMeta } from "@amplifier-ts/contracts";
import { memoryPostgresConfigSchema, mountMemory } from "@amplifier-ts/contracts";
import { PostgresMemory } from "./postgres-memory.js";

export { DEFAULT_MEMORY_PG_URL, PostgresMemory } from "./postgres-memory.js";

export const meta: ModuleMeta = {
  name: "memory-postgres",
  version: "0.1.0",
  kind: "memory",
  description: "Sessions and typed events in PostgreSQL: durable, one memory for every process on the same url and schema.",
  configSchema: memoryPostgresConfigSchema,
};

export async function mount(coordinator: CoordinatorContract, config: MemoryPostgresOptions = {}): Promise<PostgresMemory> {
  return mountMemory(coordinator, new PostgresMemory(config));
}
