import type { CoordinatorContract, StoreCapabilities, StoreCapabilityName } from "@amplifier-ts/contracts";

/**
 * What every store module's mount() does: connect the store (a misconfigured server fails the
 * mount, not the first tool call), offer it as the capability, and at cleanup take the capability
 * back and disconnect — in that order (cleanups run last-registered first), so no tool reaches a
 * disconnected store. The disconnect is registered before connecting: a failed connect is rolled back too.
 */
export async function mountStoreCapability<K extends StoreCapabilityName>(
  coordinator: CoordinatorContract,
  name: K,
  store: StoreCapabilities[K],
  connect: () => Promise<void>,
  disconnect: () => Promise<void>,
): Promise<StoreCapabilities[K]> {
  coordinator.registerCleanup(disconnect);
  await connect();
  coordinator.registerCleanup(coordinator.registerCapability(name, store));
  return store;
}
