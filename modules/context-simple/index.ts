import type { CoordinatorContract } from "@amplifier-ts/contracts";
// The module whose ContextModules this file augments (an augmentation needs its target in the program).
import type {} from "@amplifier-ts/core";
import type { ModuleMeta } from "@amplifier-ts/contracts";
import { contextSimpleConfigSchema } from "./config-schema.js";
import { HistoryContextManager, offerSpilledResults, strategyDefinitionsOf } from "@amplifier-ts/context-manager";
import type { ContextOptionsInput } from "@amplifier-ts/context-manager";
import { providerLookup } from "@amplifier-ts/summarizers";
import { embedderOf } from "@amplifier-ts/search";

// The manager this module mounts, and what its handle offers beyond the five methods (search,
// explainLastWindow, runs, setTools): typed for `session.context` without a cast.
export type { HistoryContextManager, LastWindow, MessageExplanation } from "@amplifier-ts/context-manager";

declare module "@amplifier-ts/core" {
  interface ContextModules {
    "context-simple": HistoryContextManager;
  }
}

export const meta: ModuleMeta = {
  name: "context-simple",
  version: "0.1.0",
  kind: "context",
  description: "In-memory history; exact token counts; provider-valid, cache-friendly windows.",
  configSchema: contextSimpleConfigSchema,
};

export { contextSimpleConfigSchema, type ContextSimpleConfig } from "./config-schema.js";

/** Mounts an in-memory context manager into the coordinator's context slot. */
export async function mount(coordinator: CoordinatorContract, config: ContextOptionsInput = {}): Promise<HistoryContextManager> {
  const context = new HistoryContextManager({
    moduleName: meta.name,
    options: config,
    hooks: coordinator.hooks,
    sessionId: coordinator.sessionId,
    providers: providerLookup(coordinator),
    ...embedderOf(coordinator),
    ...strategyDefinitionsOf(coordinator),
  });
  await coordinator.mount("context", context);
  // Its idle work (packing) and its bill listener end with the session.
  coordinator.registerCleanup(() => context.close());
  offerSpilledResults(coordinator, context);
  return context;
}
