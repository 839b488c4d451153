/**
 * How a history store type is declared: a type name, a zod schema of its options (the config
 * without `type`), and a factory. Drivers are registered by type, like compaction strategies:
 *
 * ```ts
 * export const historyStore = defineHistoryStore({
 *   type: "sqlite-like",
 *   description: "one file per session",
 *   options: z.looseObject({ path: z.string().min(1) }),
 *   create: (options) => new FileStore(options),
 * });
 * ```
 *
 * `create` runs synchronously and touches no storage (a store opens its connections or files in
 * `open()`); it gets the options already parsed by `options`, and `deps` to build child stores
 * (hybrid's two sides) through the same registry and validation.
 */
import type { HistoryStore } from "@amplifier-ts/contracts";
import type { ZodType } from "zod";
import type { HybridStoreEvent } from "./hybrid-store.js";

export interface HistoryStoreCreateDeps {
  /** JSON path of this store's config, for errors (`store`, `store.hot`). */
  readonly path: string;
  /** Where stores that can degrade and recover (hybrid) report it. */
  readonly onEvent?: (event: HybridStoreEvent) => void | Promise<void>;
  /** Builds a child store from its config; `path` is the child's JSON path (`store.hot`). */
  createStore(config: unknown, path: string): HistoryStore;
}

/**
 * What a store driver package exported before definitions carried a schema: a type and a factory.
 * Still accepted in `deps.drivers`; a definition is one too.
 */
export interface HistoryStoreDriver<Options = Record<string, unknown>> {
  readonly type: string;
  create(options: Options): HistoryStore;
}

export interface HistoryStoreDefinition<Options = unknown> {
  /** The config's `type`: lowercase words joined by "-". */
  readonly type: string;
  /** One line for docs and `did you mean` listings. */
  readonly description: string;
  /** The options (the config without `type`); defaults applied. Unknown keys should pass (loose) so old configs keep loading. */
  readonly options: ZodType<Options>;
  create(options: Options, deps: HistoryStoreCreateDeps): HistoryStore;
  /** The child store configs inside a config of this type (hybrid: hot and cold), so their drivers are loaded first. */
  children?(config: Readonly<Record<string, unknown>>): unknown[];
}

/** A typed identity: lets `create` see the schema's output type. */
export function defineHistoryStore<Options>(definition: HistoryStoreDefinition<Options>): HistoryStoreDefinition<Options> {
  return Object.freeze(definition);
}

/** Any definition, whatever its options (registries hold these). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyHistoryStoreDefinition = HistoryStoreDefinition<any>;

/**
 * A store type whose definition is in another package, imported when a config first names it:
 * the package exports the definition as `historyStore` (or, as before, `driver`). `package` is a
 * specifier `import()` resolves (a package name or a file URL).
 */
export interface HistoryStoreReference {
  readonly type: string;
  readonly package: string;
}

/** What a registry is built from: definitions, and references to the packages that hold them. */
export type HistoryStoreEntry = AnyHistoryStoreDefinition | HistoryStoreReference;

/**
 * Name of the coordinator capability through which a host registers history store types for ONE
 * session: a list of entries (definitions or package references), registered before the context
 * module mounts. context-persistent reads them over the built-in list.
 */
export const HISTORY_STORES_CAPABILITY = "history-stores";
