import { describe, expect, it, vi } from "vitest";
import { Coordinator } from "../../coordinator.js";
import type { AmplifierError } from "../../../contracts/errors.js";

describe("cleanup", () => {
  it("runs cleanups in reverse order of registration, awaiting async ones", async () => {
    const c = new Coordinator();
    const order: string[] = [];
    c.registerCleanup(() => void order.push("first"));
    c.registerCleanup(async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push("second");
    });
    c.registerCleanup(() => void order.push("third"));
    await c.cleanup();
    expect(order).toEqual(["third", "second", "first"]);
  });

  it("runs every cleanup even when some throw, then throws CLEANUP_FAILED once with all errors", async () => {
    const c = new Coordinator();
    const order: string[] = [];
    const early = new Error("early failure");
    const late = new Error("late failure");
    c.registerCleanup(() => void order.push("a"));
    c.registerCleanup(() => {
      order.push("b");
      throw early;
    });
    c.registerCleanup(async () => {
      order.push("c");
      throw late;
    });
    let caught: AmplifierError | undefined;
    try {
      await c.cleanup();
    } catch (error) {
      caught = error as AmplifierError;
    }
    expect(order).toEqual(["c", "b", "a"]);
    expect(caught?.code).toBe("CLEANUP_FAILED");
    expect(caught?.details.errors).toEqual([late, early]);
    expect(caught?.cause).toBeInstanceOf(AggregateError);
    expect((caught?.cause as AggregateError).errors).toEqual([late, early]);
  });

  it("is harmless when called twice: nothing runs again, nothing is thrown again", async () => {
    const c = new Coordinator();
    const fn = vi.fn(() => {
      throw new Error("once");
    });
    c.registerCleanup(fn);
    await expect(c.cleanup()).rejects.toMatchObject({ code: "CLEANUP_FAILED" });
    await expect(c.cleanup()).resolves.toBeUndefined();
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("a second call while the first runs waits for it", async () => {
    const c = new Coordinator();
    let done = false;
    c.registerCleanup(async () => {
      await new Promise((r) => setTimeout(r, 10));
      done = true;
    });
    const first = c.cleanup();
    await c.cleanup();
    expect(done).toBe(true);
    await first;
  });

  it("registerCleanup returns its unregister", async () => {
    const c = new Coordinator();
    const fn = vi.fn();
    const unregister = c.registerCleanup(fn);
    unregister();
    unregister();
    await c.cleanup();
    expect(fn).not.toHaveBeenCalled();
  });

  it("rejects a non-function, and registrations after cleanup (COORDINATOR_CLOSED)", async () => {
    const c = new Coordinator();
    expect(() => c.registerCleanup("nope" as never)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    await c.cleanup();
    expect(() => c.registerCleanup(() => undefined)).toThrow(expect.objectContaining({ code: "COORDINATOR_CLOSED" }));
  });

  it("drops ephemeral injections still held", async () => {
    const c = new Coordinator();
    await c.cleanup();
    expect(c.takeEphemeralInjections()).toEqual([]);
  });
});

describe("capabilities", () => {
  it("registerCapability / getCapability share a service between modules", () => {
    const c = new Coordinator();
    const approval = { requestApproval: async () => "allow" };
    c.registerCapability("approval", approval);
    expect(c.getCapability<typeof approval>("approval")).toBe(approval);
    expect(c.getCapability("missing")).toBeUndefined();
  });

  it("a second registration under the same name is CAPABILITY_EXISTS", () => {
    const c = new Coordinator();
    c.registerCapability("search", 1);
    expect(() => c.registerCapability("search", 2)).toThrow(expect.objectContaining({ code: "CAPABILITY_EXISTS" }));
    expect(c.getCapability("search")).toBe(1);
  });

  it("returns its unregister, which only removes its own value", () => {
    const c = new Coordinator();
    const unregister = c.registerCapability("search", 1);
    unregister();
    expect(c.getCapability("search")).toBeUndefined();
    c.registerCapability("search", 2);
    unregister();
    expect(c.getCapability("search")).toBe(2);
  });

  it("rejects an empty name or an undefined value", () => {
    const c = new Coordinator();
    expect(() => c.registerCapability("", 1)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => c.registerCapability("x", undefined)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("is per coordinator: no global state", () => {
    const a = new Coordinator();
    const b = new Coordinator();
    a.registerCapability("search", 1);
    expect(b.getCapability("search")).toBeUndefined();
  });
});
