// @amplifier-ts/module-read-stored-result: the read_stored_result tool — the model pages and searches
// the inputs its context manager spilled (contracts/spilled-results.ts).
import type { CoordinatorContract, ModuleMeta, SpilledResults, Tool } from "@amplifier-ts/contracts";
import { parseValid, SPILLED_RESULTS_CAPABILITY } from "@amplifier-ts/contracts";
import { readStoredResultConfigSchema, type ReadStoredResultConfig } from "./read-options.js";
import { createReadStoredResultTool } from "./read-stored-result.js";

export { readStoredResultConfigSchema, type ReadStoredResultConfig, type ReadStoredResultOptions } from "./read-options.js";
export { createReadStoredResultTool, readStoredResult, readStoredResultDefinition, TOOL_NAME, type ReadStoredResultInput } from "./read-stored-result.js";

export const meta: ModuleMeta = {
  name: "read-stored-result",
  version: "0.1.0",
  kind: "tool",
  description: "The read_stored_result tool: pages and searches results too large for the window, which the context manager spilled to the session's blob store.",
  configSchema: readStoredResultConfigSchema,
};

/**
 * Returns the tool; the loader mounts it under its config name (`{ "name": "read_stored_result",
 * "module": "read-stored-result" }`). The "spilled-results" capability is looked up at each call:
 * the context module that offers it may mount before or after this one.
 */
export function mount(coordinator: CoordinatorContract, config: ReadStoredResultConfig = {}): Tool {
  const options = parseValid(readStoredResultConfigSchema, config, { code: "INVALID_MODULE_CONFIG", path: "config", details: { module: meta.name } });
  return createReadStoredResultTool(() => coordinator.getCapability<SpilledResults>(SPILLED_RESULTS_CAPABILITY), options);
}
