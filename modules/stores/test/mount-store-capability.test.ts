import type { BlobStore, CoordinatorContract } from "@amplifier-ts/contracts";
import { describe, expect, it } from "vitest";
import { mountStoreCapability } from "../index.js";

/** The two coordinator calls mountStoreCapability makes, recorded; cleanups run last-registered first. */
function recordingCoordinator() {
  const log: string[] = [];
  const cleanups: Array<() => unknown> = [];
  const coordinator = {
    registerCleanup(fn: () => unknown) {
      cleanups.push(fn);
      return () => undefined;
    },
    registerCapability(name: string) {
      log.push(`offer ${name}`);
      return () => log.push(`withdraw ${name}`);
    },
  } as unknown as CoordinatorContract;
  const cleanup = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  };
  return { coordinator, log, cleanup };
}

const store = {} as BlobStore;

describe("mountStoreCapability", () => {
  it("connects, then offers the store; cleanup withdraws it before disconnecting", async () => {
    const { coordinator, log, cleanup } = recordingCoordinator();
    const mounted = await mountStoreCapability(coordinator, "blobs", store, async () => void log.push("connect"), async () => void log.push("disconnect"));
    expect(mounted).toBe(store);
    expect(log).toEqual(["connect", "offer blobs"]);
    await cleanup();
    expect(log).toEqual(["connect", "offer blobs", "withdraw blobs", "disconnect"]);
  });

  it("a failed connect offers nothing and still disconnects at cleanup", async () => {
    const { coordinator, log, cleanup } = recordingCoordinator();
    const failing = mountStoreCapability(coordinator, "blobs", store, () => Promise.reject(new Error("no server")), async () => void log.push("disconnect"));
    await expect(failing).rejects.toThrow("no server");
    await cleanup();
    expect(log).toEqual(["disconnect"]);
  });
});
