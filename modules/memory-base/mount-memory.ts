import { MEMORY_CAPABILITY, type CoordinatorContract, type Memory, type ModuleMeta } from "@amplifier-ts/contracts";
import type { ZodType } from "zod";

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

/** What a memory module says about itself; `create` builds its memory from a checked config. */
export interface MemoryModuleDefinition<Config, M extends Memory> {
  name: string;
  version?: string;
  description: string;
  configSchema: ZodType<Config>;
  create(config: Config): M;
}

/** A memory module's two exports: `meta` (kind "memory") and `mount`, which builds the memory and mounts it (mountMemory). */
export interface MemoryModule<Config, M extends Memory> {
  meta: ModuleMeta;
  mount(coordinator: CoordinatorContract, config?: Config): Promise<M>;
}

/** `export const { meta, mount } = defineMemoryModule({ … })`: the whole entry point of a memory module. */
export function defineMemoryModule<Config, M extends Memory>(definition: MemoryModuleDefinition<Config, M>): MemoryModule<Config, M> {
  const { name, version = "0.1.0", description, configSchema, create } = definition;
  return {
    meta: { name, version, kind: "memory", description, configSchema },
    mount: async (coordinator, config = {} as Config) => mountMemory(coordinator, create(config)),
  };
}
