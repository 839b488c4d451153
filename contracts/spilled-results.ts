/**
 * The service behind `coordinator.getCapability("spilled-results")`: the whole text of inputs a
 * context manager spilled (a tool result or user message too large for the window, written to the
 * session's blob store; the window carries an excerpt naming its handle). The built-in context
 * modules register it when they mount; the read_stored_result tool pages and searches through it.
 */
export const SPILLED_RESULTS_CAPABILITY = "spilled-results";

export interface SpilledResults {
  /**
   * The stored text under `handle` (as the excerpt names it). Not a handle → INVALID_ARGUMENT;
   * nothing stored under it → SPILL/UNKNOWN_HANDLE.
   */
  read(handle: string): Promise<string>;
}
