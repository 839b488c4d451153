// @amplifier-ts/module-memory-null: agent memory that stores nothing.
import { defineMemoryModule } from "@amplifier-ts/memory-base";
import { memoryNullConfigSchema } from "./memory-null-config.js";
import { NullMemory } from "./null-memory.js";

export { memoryNullConfigSchema, type MemoryNullOptions } from "./memory-null-config.js";
export { NullMemory } from "./null-memory.js";

export const { meta, mount } = defineMemoryModule({
  name: "memory-null",
  description: "Memory disabled: every operation succeeds and nothing is stored.",
  configSchema: memoryNullConfigSchema,
  create: (config) => new NullMemory(config),
});
