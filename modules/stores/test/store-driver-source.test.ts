import { isAmplifierError } from "@amplifier-ts/contracts";
import { describe, expect, it } from "vitest";
import { importStoreDriver, storeDriverMissing, type StoreDriverSource } from "../index.js";

const source = (packageName: string, exportName: string): StoreDriverSource => ({ kind: "blobs", type: "postgres", packageName, exportName });

describe("importStoreDriver", () => {
  it("a package that is not installed is STORE_DRIVER_MISSING naming the package to install", async () => {
    const error = await importStoreDriver(source("@amplifier-ts/not-installed-anywhere", "blobDriver")).catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORE_DRIVER_MISSING")).toBe(true);
    expect((error as Error).message).toContain("a postgres blobs store needs the package @amplifier-ts/not-installed-anywhere");
    expect((error as { details: { hint?: string; module?: string } }).details).toMatchObject({ hint: "npm install @amplifier-ts/not-installed-anywhere", module: "store-blobs", path: "type" });
  });

  it("a package without the driver export is STORE_DRIVER_MISSING saying what it should export", async () => {
    const error = await importStoreDriver(source("zod", "noSuchDriver")).catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORE_DRIVER_MISSING")).toBe(true);
    expect((error as Error).message).toContain("zod does not export a postgres blobs store driver");
    expect((error as { details: { expected?: string } }).details.expected).toBe('export const noSuchDriver = { type: "postgres", create(options) }');
  });
});

describe("storeDriverMissing", () => {
  it("keeps the cause it is given, and none when there is none", () => {
    const cause = new Error("boom");
    expect(storeDriverMissing(source("pkg", "x"), cause).cause).toBe(cause);
    expect(storeDriverMissing(source("pkg", "x")).cause).toBeUndefined();
  });
});
