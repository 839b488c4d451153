import type { CoordinatorContract } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { builtInHistoryStores, HISTORY_STORES_CAPABILITY, HistoryStoreRegistry, type HistoryStoreEntry } from "@amplifier-ts/stores";

/**
 * The registry a session's store config is resolved in: the built-in list, plus the history store
 * types a host registered for this session through the capability "history-stores" (definitions
 * or `{ type, package }` references), so a type registered for one session is unknown in another.
 */
export function historyStoresOf(coordinator: CoordinatorContract): HistoryStoreRegistry {
  const registered = coordinator.getCapability<unknown>(HISTORY_STORES_CAPABILITY);
  if (registered === undefined) return builtInHistoryStores;
  const entries = typeof registered === "object" && registered !== null && Symbol.iterator in registered ? [...(registered as Iterable<unknown>)] : undefined;
  if (entries === undefined) {
    throw createError("INVALID_ARGUMENT", `capability "${HISTORY_STORES_CAPABILITY}" is not a list of history store definitions`, {
      path: HISTORY_STORES_CAPABILITY,
      expected: "an array of defineHistoryStore({ type, description, options, create }) or { type, package }",
      given: registered,
    });
  }
  // register() checks each entry's shape and refuses a type registered twice.
  return new HistoryStoreRegistry(entries as HistoryStoreEntry[], { parent: builtInHistoryStores });
}
