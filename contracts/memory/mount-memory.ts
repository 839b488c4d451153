import type { CoordinatorContract } from "../coordinator.js";
import { MEMORY_CAPABILITY, type Memory } from "./memory.js";

/**
 * What every memory module's mount() does with its instance: mounts it at the `memory` point,
 * offers it as the "memory" capability (hooks and the server find it there), and closes it at
 * cleanup — capability and mount are taken back in reverse order by the coordinator's cleanups.
 */
export async function mountMemory<T extends Memory>(coordinator: CoordinatorContract, memory: T): Promise<T> {
  coordinator.registerCleanup(() => memory.close());
  await coordinator.mount("memory", memory);
  coordinator.registerCleanup(() => (coordinator.get("memory") === memory ? coordinator.unmount("memory") : undefined));
  coordinator.registerCleanup(coordinator.registerCapability(MEMORY_CAPABILITY, memory));
  return memory;
}

/** The session's memory (the "memory" capability), or undefined when none is mounted. */
export function memoryOf(coordinator: Pick<CoordinatorContract, "getCapability">): Memory | undefined {
  return coordinator.getCapability<Memory>(MEMORY_CAPABILITY);
}
