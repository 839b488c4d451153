import type { CoordinatorContract } from "../../contracts/coordinator.js";
import type { ModuleMeta } from "../../contracts/module.js";
import configSchema from "../../contracts/schemas/modules/context-simple.config.schema.json" with { type: "json" };
import { HistoryContextManager } from "../context/history-context-manager.js";
import type { ContextOptionsInput } from "../context/context-options.js";
import { providerLookup } from "../summarizers/configured-summarizer.js";
import { embedderOf } from "../search/embedder-capability.js";

export const meta: ModuleMeta = {
  name: "context-simple",
  version: "0.1.0",
  kind: "context",
  description: "In-memory history; exact token counts; provider-valid, cache-friendly windows.",
  configSchema,
};

/** Mounts an in-memory context manager into the coordinator's context slot. */
export async function mount(coordinator: CoordinatorContract, config: ContextOptionsInput = {}): Promise<HistoryContextManager> {
  const context = new HistoryContextManager({
    moduleName: meta.name,
    options: config,
    hooks: coordinator.hooks,
    sessionId: coordinator.sessionId,
    providers: providerLookup(coordinator),
    ...embedderOf(coordinator),
  });
  await coordinator.mount("context", context);
  return context;
}
