/**
 * A store registry: type → definition, and the one place a store config becomes a store — one
 * class for every kind (history, blob, graph, task and vector stores; `StoreKind` words their
 * errors). Errors a user can act on:
 *
 * | problem                              | code                 | details                                         |
 * |--------------------------------------|----------------------|-------------------------------------------------|
 * | config is not `{ "type": "…" }`      | INVALID_ARGUMENT     | path `store`, expected, given                   |
 * | unknown type                         | UNKNOWN_STORE        | path `store.type`, the registered types, `did you mean` |
 * | type's package not installed/given   | STORE_DRIVER_MISSING | the package to install                          |
 * | bad option                           | INVALID_ARGUMENT     | path `store.<option>`, expected, given          |
 *
 * A registry reads through to its parent: a session's registry (the capability "history-stores")
 * over `builtInHistoryStores`, so a type registered for one session is unknown in another.
 * Paths above are the history stores'; each kind names its own (`config.type` for a blob store).
 * Entries that reference a package are imported by `load()` (each time: Node caches the module,
 * the registry holds no state beyond its entries); `create()` is synchronous and needs such a
 * type's definition or driver given in `definitions` / `drivers`.
 */
import { createError, describeValue, didYouMean, parseValid } from "@amplifier-ts/contracts";
import { z } from "zod";
import type { AnyStoreDefinition, StoreCreateDeps, StoreDriver, StoreEntry, StoreReference } from "./store-definition.js";

/** How a kind of store is named in errors and where its packages export their definitions. */
export interface StoreKind {
  /** "history store", "blob store" … */
  readonly noun: string;
  /** details.module of its errors: "stores", "store-blobs" … */
  readonly module: string;
  /** JSON path of a config, by default: "store", "config". */
  readonly path: string;
  /** The export a referenced package's definition is read from when the reference names none. */
  readonly exports: readonly string[];
}

export interface StoreBuildOptions<Store> {
  /** JSON path of the config, for errors. Default the kind's. */
  readonly path?: string;
  /** Host services handed to every definition's `create` (and its children's), e.g. `onEvent`. */
  readonly services?: Readonly<Record<string, unknown>>;
  /** Definitions that win over the registry's, by type (e.g. drivers a host imported itself). */
  readonly definitions?: Readonly<Record<string, AnyStoreDefinition<Store> | undefined>>;
  /** Bare drivers (type + create), by type: checked by the registry's schema of the type when it is loaded. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly drivers?: Readonly<Record<string, StoreDriver<any, Store> | undefined>>;
}

export class StoreRegistry<Store> {
  readonly kind: StoreKind;
  /** Definitions and references, in registration order. */
  readonly #entries = new Map<string, StoreEntry<Store>>();
  readonly #parent: StoreRegistry<Store> | undefined;

  constructor(kind: StoreKind, entries: Iterable<StoreEntry<Store>> = [], options: { readonly parent?: StoreRegistry<Store> } = {}) {
    this.kind = kind;
    this.#parent = options.parent;
    for (const entry of entries) this.register(entry);
  }

  /** Adds a store type (a definition, or a reference to the package exporting it); returns its unregister. */
  register(entry: StoreEntry<Store>): () => void {
    const valid = typeof entry?.type === "string" && /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(entry.type) && (isReference(entry) || (typeof entry.create === "function" && typeof entry.options?.safeParse === "function"));
    if (!valid) {
      throw createError("INVALID_ARGUMENT", `register() expects a ${this.kind.noun} definition or { type, package }`, {
        module: this.kind.module,
        expected: '{ type: "kebab-case", description, options: zod schema, create } or { type, package: "npm-name" }',
        given: entry,
      });
    }
    if (this.has(entry.type)) {
      throw createError("INVALID_ARGUMENT", `a ${this.kind.noun} of type "${entry.type}" is already registered`, { module: this.kind.module, given: entry.type });
    }
    this.#entries.set(entry.type, entry);
    return () => {
      if (this.#entries.get(entry.type) !== entry) return;
      this.#entries.delete(entry.type);
    };
  }

  has(type: string): boolean {
    return this.#entries.has(type) || (this.#parent?.has(type) ?? false);
  }

  /** Every type this registry resolves (its parent's first), in registration order. */
  types(): string[] {
    const types = new Set(this.#parent?.types());
    for (const type of this.#entries.keys()) types.add(type);
    return [...types];
  }

  /** The definition of `type` registered here or in the parent (undefined for a reference: see `resolve`). */
  definition(type: string): AnyStoreDefinition<Store> | undefined {
    const entry = this.#entries.get(type);
    if (entry === undefined) return this.#parent?.definition(type);
    return isReference(entry) ? undefined : entry;
  }

  /** The definition of `type`, its package imported when it is a reference (Node caches the import, not the registry). */
  async resolve(type: string): Promise<AnyStoreDefinition<Store> | undefined> {
    const reference = this.reference(type);
    return reference === undefined ? this.definition(type) : this.#import(reference);
  }

  /** The package a type's definition is imported from, when it is a reference (loaded or not). */
  reference(type: string): StoreReference | undefined {
    const entry = this.#entries.get(type);
    if (entry === undefined) return this.#parent?.reference(type);
    return isReference(entry) ? entry : undefined;
  }

  /** The types a config names whose definition is in a package, children (hybrid's sides) included. */
  packageTypesOf(config: unknown): string[] {
    return this.#typesOf(config, (type) => this.reference(type) !== undefined);
  }


  #typesOf(config: unknown, keep: (type: string) => boolean): string[] {
    if (typeof config !== "object" || config === null || Array.isArray(config)) return [];
    const type = (config as { type?: unknown }).type;
    if (typeof type !== "string") return [];
    if (keep(type)) return [type];
    const children = this.definition(type)?.children?.(config as Record<string, unknown>) ?? [];
    return [...new Set(children.flatMap((child) => this.#typesOf(child, keep)))];
  }


  /** A store from its config, synchronously (see `load` for types whose package is not loaded yet). */
  create(config: unknown, options: StoreBuildOptions<Store> = {}): Store {
    const path = options.path ?? this.kind.path;
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      throw createError("INVALID_ARGUMENT", `a ${this.kind.noun} config must be an object with a type`, {
        module: this.kind.module,
        path,
        expected: `{ type: ${this.types().map((t) => JSON.stringify(t)).join(" | ")}, … }`,
        given: config,
      });
    }
    const { type, ...given } = config as { type?: unknown; [option: string]: unknown };
    if (typeof type !== "string" || !this.has(type)) {
      const types = this.types();
      const suggestion = typeof type === "string" ? didYouMean(type, types) : undefined;
      throw createError("UNKNOWN_STORE", `No ${this.kind.noun} of type ${describeValue(type)}`, {
        module: this.kind.module,
        path: `${path}.type`,
        expected: `one of ${types.join(", ")}`,
        given: type,
        hint: suggestion ?? `registered ${this.kind.noun} types: ${types.join(", ")}`,
      });
    }
    const definition = this.#definitionFor(type, options);
    const parsed = parseValid(definition.options, given, { code: "INVALID_ARGUMENT", path, details: { module: `${this.kind.module}/${type}` } });
    const deps: StoreCreateDeps<Store> = {
      ...options.services,
      path,
      createStore: (child, childPath) => this.create(child, { ...options, path: childPath }),
    };
    return definition.create(parsed, deps);
  }

  /** `create`, after importing the packages of the referenced types the config names (a hybrid's sides included). */
  async load(config: unknown, options: StoreBuildOptions<Store> = {}): Promise<Store> {
    const definitions: Record<string, AnyStoreDefinition<Store> | undefined> = { ...options.definitions };
    for (const type of this.packageTypesOf(config)) {
      if (options.drivers?.[type] !== undefined || definitions[type] !== undefined) continue;
      definitions[type] = await this.#import(this.reference(type)!);
    }
    return this.create(config, { ...options, definitions });
  }

  #definitionFor(type: string, options: StoreBuildOptions<Store>): AnyStoreDefinition<Store> {
    const defined = options.definitions?.[type];
    if (defined !== undefined) return defined;
    const given = options.drivers?.[type];
    const known = this.definition(type);
    if (given !== undefined) return asDefinition(given, known);
    if (known !== undefined) return known;
    throw missingPackage(this.kind, this.reference(type)!);
  }

  async #import(reference: StoreReference): Promise<AnyStoreDefinition<Store>> {
    let namespace: Record<string, unknown>;
    try {
      namespace = (await import(reference.package)) as typeof namespace;
    } catch (cause) {
      throw missingPackage(this.kind, reference, cause);
    }
    const names = reference.export === undefined ? this.kind.exports : [reference.export];
    const exported = names.map((name) => namespace[name]).find((value) => value !== undefined) as Partial<AnyStoreDefinition<Store>> | undefined;
    if (exported?.type !== reference.type || typeof exported.create !== "function") {
      throw createError("STORE_DRIVER_MISSING", `${reference.package} does not export a ${reference.type} ${this.kind.noun}`, {
        module: this.kind.module,
        path: `${this.kind.path}.type`,
        expected: `export const ${names[0]} = { type: "${reference.type}", description, options, create }`,
        given: exported,
      });
    }
    return asDefinition(exported as AnyStoreDefinition<Store>, undefined);
  }
}

function isReference<Store>(entry: StoreEntry<Store>): entry is StoreReference {
  return typeof (entry as { package?: unknown }).package === "string";
}

/** A bare driver (type + create) validated by the loaded definition's schema when there is one. */
function asDefinition<Store>(driver: StoreDriver<never, Store> | AnyStoreDefinition<Store>, known: AnyStoreDefinition<Store> | undefined): AnyStoreDefinition<Store> {
  if ("options" in driver && typeof driver.options?.safeParse === "function") return driver as AnyStoreDefinition<Store>;
  return {
    type: driver.type,
    description: known?.description ?? driver.type,
    options: known?.options ?? z.looseObject({}),
    create: (options) => (driver as StoreDriver<unknown, Store>).create(options),
  };
}

function missingPackage(kind: StoreKind, reference: StoreReference, cause?: unknown) {
  return createError("STORE_DRIVER_MISSING", `a ${reference.type} ${kind.noun} needs the package ${reference.package}`, {
    module: kind.module,
    path: `${kind.path}.type`,
    expected: `${reference.package} installed (the amplifier-ts package includes it), passed in deps.drivers or loaded by the async load…Store()`,
    given: reference.type,
    hint: `npm install ${reference.package}`,
    ...(cause === undefined ? {} : { cause }),
  });
}
