import type { CoordinatorContract, SpilledResults } from "@amplifier-ts/contracts";
import { SPILLED_RESULTS_CAPABILITY } from "@amplifier-ts/contracts";
import type { HistoryContextManager } from "./history-context-manager.js";

/**
 * Offers the manager's spilled inputs as the "spilled-results" capability (the read_stored_result
 * tool reads through it); the registration is undone when the coordinator cleans up. Context
 * modules call it right after they mount their manager.
 */
export function offerSpilledResults(coordinator: CoordinatorContract, context: HistoryContextManager): void {
  const service: SpilledResults = { read: (handle) => context.readSpilled(handle) };
  coordinator.registerCleanup(coordinator.registerCapability(SPILLED_RESULTS_CAPABILITY, service));
}
