// @amplifier-ts/module-memory-null: agent memory that stores nothing.
import type { CoordinatorContract, MemoryLocalOptions, ModuleMeta } from "@amplifier-ts/contracts";
import { memoryLocalConfigSchema, mountMemory } from "@amplifier-ts/contracts";
import { NullMemory } from "./null-memory.js";

export { NullMemory } from "./null-memory.js";

export const meta: ModuleMeta = {
  name: "memory-null",
  version: "0.1.0",
  kind: "memory",
  description: "Memory disabled: every operation succeeds and nothing is stored.",
  configSchema: memoryLocalConfigSchema,
};

export async function mount(coordinator: CoordinatorContract, config: MemoryLocalOptions = {}): Promise<NullMemory> {
  return mountMemory(coordinator, new NullMemory(config));
}
