import type { ZodType } from "zod";
import { editorConfigSchema, registryConfigSchema } from "./store-config-schema.js";
import type { StoreEntry } from "./store-definition.js";
import { StoreRegistry, type StoreKind } from "./store-registry.js";

/** What a store module says about its kind of store: its words, its built-in types, its config's name. */
export interface StoreKindSpec<Store> {
  /** "blob store", "graph store" … (errors). */
  readonly noun: string;
  /** The module its errors name: "store-blobs" … */
  readonly module: string;
  /** The export a referenced package's definition is read from when the reference names none. */
  readonly exports: readonly string[];
  /** JSON path of a config in errors. Default "config". */
  readonly path?: string;
  /** The built-in types, one line each: a definition, or `{ type, package, export }` imported when a config first names it. */
  readonly builtIns: readonly StoreEntry<Store>[];
  /** The module config's schema id (also its title) and description. */
  readonly config: { readonly id: string; readonly description: string };
  /** Title of each built-in type's member in the editor schema (type → name), e.g. memory → MemoryBlobStoreConfig. */
  readonly editorTitles: Readonly<Record<string, string>>;
}

/** Bundled driver packages for the editor schema: package specifier → its module namespace. */
export type BundledPackages = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A kind of store, wired once: its registry, the module's config schema and the editors' schema. */
export interface StoreKindFace<Store> {
  readonly kind: StoreKind;
  readonly builtIns: readonly StoreEntry<Store>[];
  /** The types this kind knows; a third party registers more here. */
  readonly registry: StoreRegistry<Store>;
  /** The module's config: a registered type and, once its definition is loaded, its options. */
  readonly configSchema: ZodType<{ type: string; [option: string]: unknown }>;
  /** The same config for editors (JSON Schema), from every built-in type. */
  readonly editorSchema: (packages?: BundledPackages) => Promise<ZodType>;
}

/**
 * One face for the agent stores (blobs, graph, tasks, vectors): each store module states its kind
 * and built-in list here and gets the registry and both schemas, so adding a kind or a type never
 * repeats the wiring.
 */
export function defineStoreKind<Store>(spec: StoreKindSpec<Store>): StoreKindFace<Store> {
  const kind: StoreKind = Object.freeze({ noun: spec.noun, module: spec.module, path: spec.path ?? "config", exports: Object.freeze([...spec.exports]) });
  const builtIns = Object.freeze([...spec.builtIns]);
  const registry = new StoreRegistry<Store>(kind, builtIns);
  const meta = { id: spec.config.id, title: spec.config.id, description: spec.config.description };
  return Object.freeze({
    kind,
    builtIns,
    registry,
    configSchema: registryConfigSchema(registry, meta),
    editorSchema: (packages: BundledPackages = {}) => editorConfigSchema(registry, spec.editorTitles, meta, packages),
  });
}
