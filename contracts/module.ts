import type { CoordinatorContract as Coordinator } from "./coordinator.js";

export type ModuleKind = "orchestrator" | "context" | "provider" | "tool" | "hook";

/**
 * Optional `export const meta` of a module. `configSchema` is a JSON Schema (draft-07) the
 * loader validates the module's config against before mount() runs.
 */
export interface ModuleMeta {
  name: string;
  version?: string;
  kind?: ModuleKind;
  description?: string;
  configSchema?: Record<string, unknown>;
}

/** What mount() may return: an instance, a cleanup function (registered for it), or nothing. */
export type MountResult = unknown;

export type MountFunction<Config = Record<string, unknown>> = (
  coordinator: Coordinator,
  config: Config,
) => MountResult | Promise<MountResult>;

/** The shape of an amplifier module: an ES module exporting mount, optionally meta. */
export interface AmplifierModule<Config = Record<string, unknown>> {
  mount: MountFunction<Config>;
  meta?: ModuleMeta;
}
