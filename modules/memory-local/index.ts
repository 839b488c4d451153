// @amplifier-ts/module-memory-local: agent memory in this process (ring buffers, bounded sessions).
import { defineMemoryModule } from "@amplifier-ts/memory-base";
import { LocalMemory } from "./local-memory.js";
import { memoryLocalConfigSchema } from "./memory-local-config.js";

export { LocalMemory } from "./local-memory.js";
export { memoryLocalConfigSchema, type MemoryLocalConfig, type MemoryLocalOptions } from "./memory-local-config.js";
export { RingBuffer } from "./ring-buffer.js";

/** `mount` builds a LocalMemory, mounts it at the memory point and offers it as the "memory" capability. */
export const { meta, mount } = defineMemoryModule({
  name: "memory-local",
  description: "Sessions and typed events in this process; ring buffers (O(1) append and eviction), oldest 10 % of sessions evicted past maxSessions.",
  configSchema: memoryLocalConfigSchema,
  create: (config) => new LocalMemory(config),
});
