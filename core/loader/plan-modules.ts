import type { AmplifierConfig } from "@amplifier-ts/contracts";
import { formatPath, type PathSegment } from "../config/format-path.js";

/** Where a config entry goes. `hooks` is not a mount point: hook modules register on coordinator.hooks. */
export type ConfigPoint = "embedder" | "context" | "memory" | "stores" | "orchestrator" | "providers" | "tools" | "hooks";

/** The store capabilities a config's "stores" section can name, in mount order. */
export const STORE_KINDS = ["blobs", "graph", "tasks", "vectors"] as const;

/** One module of a config, in mount order. */
export interface PlannedModule {
  point: ConfigPoint;
  /** The reference as written (`my-context`, `./tools/search.ts`, `some-package`). */
  specifier: string;
  /** The mount name (providers, tools) or display name. */
  name: string | undefined;
  config: Record<string, unknown>;
  /** Only providers, tools and hooks can be optional; the session's modules never are. */
  optional: boolean;
  /** Where the entry sits in the config file. */
  at: PathSegment[];
  path: string;
}

/**
 * The mount order, and why:
 *
 * | order | point        | reason                                                                |
 * |-------|--------------|-----------------------------------------------------------------------|
 * | 1     | hooks        | first, so they hear everything the other modules announce while they  |
 * |       |              | mount (module:mounted, context:storage_fallback, storage_recovered …) |
 * | 1b    | embedder     | the top-level "embedder" entry: it registers the capability           |
 * |       |              | "embedder" (contracts/search.ts), which the context reads at mount    |
 * | 2     | context      | required; providers, tools and the orchestrator may use it at mount   |
 * | 2b    | memory       | the top-level "memory" entry (agent memory)                           |
 * | 2c    | stores       | "stores": blobs, graph, tasks, vectors — each module registers its   |
 * |       |              | capability, so providers and tools find them when they mount          |
 * | 3     | providers    | in file order                                                         |
 * | 4     | tools        | in file order                                                         |
 * | 5     | orchestrator | last: it drives everything above and may look it up when it mounts    |
 *
 * A hook module finds no context manager while it mounts; its handlers reach it when they run
 * (`coordinator.get("context")`).
 */
export const MOUNT_ORDER: readonly ConfigPoint[] = ["hooks", "embedder", "context", "memory", "stores", "providers", "tools", "orchestrator"];

export function planModules(config: AmplifierConfig): PlannedModule[] {
  const plan: PlannedModule[] = [];
  const add = (point: ConfigPoint, at: PathSegment[], ref: { module: string; config?: object; name?: string; optional?: boolean }): void => {
    plan.push({
      point,
      specifier: ref.module,
      name: ref.name,
      // A shallow copy: a module that edits its config must not edit the session's. Not a deep
      // clone: configs given as objects may carry instances (a client, a tokenizer) that must stay themselves.
      config: { ...(ref.config ?? {}) } as Record<string, unknown>,
      optional: point !== "context" && point !== "orchestrator" && ref.optional === true,
      at,
      path: formatPath(at),
    });
  };
  for (const point of MOUNT_ORDER) {
    if (point === "context" || point === "orchestrator") {
      const ref = config.session[point];
      if (ref !== undefined) add(point, ["session", point], ref);
      continue;
    }
    if (point === "memory" || point === "embedder") {
      const ref = config[point];
      if (ref !== undefined) add(point, [point], ref);
      continue;
    }
    if (point === "stores") {
      for (const kind of STORE_KINDS) {
        const ref = config.stores?.[kind];
        if (ref !== undefined) add(point, ["stores", kind], { name: kind, ...ref });
      }
      continue;
    }
    (config[point] ?? []).forEach((ref, index) => add(point, [point, index], ref));
  }
  return plan;
}
