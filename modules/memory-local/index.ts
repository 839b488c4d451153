// @amplifier-ts/module-memory-local: agent memory in this process (ring buffers, bounded sessions).
import type { CoordinatorContract, MemoryLocalOptions, ModuleMeta } from "@amplifier-ts/contracts";
import { memoryLocalConfigSchema, mountMemory } from "@amplifier-ts/contracts";
import { LocalMemory } from "./local-memory.js";

export { LocalMemory } from "./local-memory.js";
export { RingBuffer } from "./ring-buffer.js";

export const meta: ModuleMeta = {
  name: "memory-local",
  version: "0.1.0",
  kind: "memory",
  description: "Sessions and typed events in this process; ring buffers (O(1) append and eviction), oldest 10 % of sessions evicted past maxSessions.",
  configSchema: memoryLocalConfigSchema,
};

/** Mounts a LocalMemory at the memory point and offers it as the "memory" capability. */
export async function mount(coordinator: CoordinatorContract, config: MemoryLocalOptions = {}): Promise<LocalMemory> {
  return mountMemory(coordinator, new LocalMemory(config));
}
