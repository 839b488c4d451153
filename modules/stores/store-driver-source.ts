import { createError } from "@amplifier-ts/contracts";

/** The package that carries a store type's driver, and the export that holds it. */
export interface StoreDriverSource {
  kind: string;
  type: string;
  packageName: string;
  exportName: string;
}

/**
 * Imports a driver (`{ type, create(options) }`) from its package, the way the history stores'
 * drivers are loaded: a package that is not installed, or that does not export the driver, is
 * STORE_DRIVER_MISSING naming the package to install.
 */
export async function importStoreDriver<D extends { type: string; create: (...args: never[]) => unknown }>(source: StoreDriverSource): Promise<D> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(source.packageName)) as Record<string, unknown>;
  } catch (cause) {
    throw storeDriverMissing(source, cause);
  }
  const driver = namespace[source.exportName] as Partial<D> | undefined;
  if (driver?.type !== source.type || typeof driver.create !== "function") {
    throw createError("STORE_DRIVER_MISSING", `${source.packageName} does not export a ${source.type} ${source.kind} store driver`, {
      module: `store-${source.kind}`,
      path: "type",
      expected: `export const ${source.exportName} = { type: "${source.type}", create(options) }`,
      given: driver,
    });
  }
  return driver as D;
}

/** STORE_DRIVER_MISSING for a store type whose driver package is not installed (or not given). */
export function storeDriverMissing(source: StoreDriverSource, cause?: unknown) {
  return createError("STORE_DRIVER_MISSING", `a ${source.type} ${source.kind} store needs the package ${source.packageName}`, {
    module: `store-${source.kind}`,
    path: "type",
    expected: `${source.packageName} installed (the amplifier-ts package includes it), passed in deps.drivers or loaded by the async load…Store()`,
    given: source.type,
    hint: `npm install ${source.packageName}`,
    ...(cause === undefined ? {} : { cause }),
  });
}
