import type { ZodType } from "zod";
import type { CoordinatorContract as Coordinator } from "./coordinator.js";

export type ModuleKind = "orchestrator" | "context" | "memory" | "provider" | "tool" | "hook";

/**
 * Optional `export const meta` of a module. `configSchema` is what the loader validates the
 * module's config against before mount() runs: a zod schema, or a JSON Schema (draft-07 by
 * default; 2019-09 and 2020-12 by `$schema`), which the loader reads with `z.fromJSONSchema`.
 */
export interface ModuleMeta {
  name: string;
  version?: string;
  kind?: ModuleKind;
  description?: string;
  configSchema?: Record<string, unknown> | ZodType;
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
