/**
 * How a store type is declared, for every kind of store (history, blob, graph, task, vector): a
 * type name, a zod schema of its options (the config without `type`), and a factory. Store types
 * register by type, as compaction strategies register by name:
 *
 * ```ts
 * export const blobStore = defineStore<BlobStore>()({
 *   type: "s3",
 *   description: "blobs in an S3 bucket",
 *   options: z.looseObject({ bucket: z.string().min(1) }),
 *   create: (options) => new S3BlobStore(options),
 * });
 * ```
 *
 * `create` runs synchronously and touches no storage (a store connects in its own open/connect);
 * it gets the options already parsed, and `deps` to build child stores through the same registry.
 */
import type { ZodType } from "zod";

export interface StoreCreateDeps<Store> {
  /** JSON path of this store's config, for errors (`store`, `store.hot`, `config`). */
  readonly path: string;
  /** Builds a child store from its config; `path` is the child's JSON path. */
  createStore(config: unknown, path: string): Store;
  /** Host services given to the registry's create/load (`services`), e.g. history stores' `onEvent`. */
  readonly [service: string]: unknown;
}

/** A factory alone, as store drivers were exported before definitions carried a schema. */
export interface StoreDriver<Options, Store> {
  readonly type: string;
  create(options: Options): Store;
}

export interface StoreDefinition<Options, Store> {
  /** The config's `type`: lowercase words joined by "-". */
  readonly type: string;
  /** One line for docs and `did you mean` listings. */
  readonly description: string;
  /** The options (the config without `type`); defaults applied. Loose (unknown keys pass) where old configs carry extra keys. */
  readonly options: ZodType<Options>;
  create(options: Options, deps: StoreCreateDeps<Store>): Store;
  /** The child store configs inside a config of this type (hybrid: hot and cold), so their packages are loaded first. */
  children?(config: Readonly<Record<string, unknown>>): unknown[];
}

/** A typed identity for one kind of store: `defineStore<BlobStore>()({ … })` lets `create` see the schema's output. */
export function defineStore<Store>() {
  return <Options>(definition: StoreDefinition<Options, Store>): StoreDefinition<Options, Store> => Object.freeze(definition);
}

/** Any definition of a kind, whatever its options (registries hold these). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStoreDefinition<Store> = StoreDefinition<any, Store>;

/**
 * A store type whose definition is in another package, imported when a config first names it.
 * `package` is a specifier `import()` resolves (a package name or a file URL); `export` the name of
 * the definition there (default: the kind's, e.g. `historyStore`).
 */
export interface StoreReference {
  readonly type: string;
  readonly package: string;
  readonly export?: string;
}

/** What a registry is built from: definitions, and references to the packages that hold them. */
export type StoreEntry<Store> = AnyStoreDefinition<Store> | StoreReference;
