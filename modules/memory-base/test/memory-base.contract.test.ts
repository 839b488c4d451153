import { describe, expect, it } from "vitest";
import { isAmplifierError, type Memory } from "@amplifier-ts/contracts";
import { describeMemoryContract } from "../../../testing/memory-contract.js";
import { recentMemoryEvents } from "../index.js";
import { MapMemory } from "./map-memory.js";

// A backend of storage primitives only passes the whole contract: the base checks, refuses after
// close, answers SESSION_EXISTS, formats the conversation, and reads recent events by event time.
describeMemoryContract("MemoryBase over a Map (primitives only)", async (limits) => ({ memory: new MapMemory(limits) }));

// A memory written for version 1 of the contract (no getRecentEvents): recentMemoryEvents reads
// every session for it. The memory under test answers getRecentEvents with recentMemoryEvents
// over a view of itself without the method, so the suite's recent-events checks run on it.
describeMemoryContract("recentMemoryEvents over a memory without getRecentEvents (contract version 1)", async (limits) => {
  const memory = new MapMemory(limits);
  const v1 = new Proxy(memory, { get: (target, key) => (key === "getRecentEvents" ? undefined : Reflect.get(target, key)) }) as Memory;
  Object.defineProperty(memory, "getRecentEvents", { value: (options: Parameters<typeof recentMemoryEvents>[1]) => recentMemoryEvents(v1, options), configurable: true });
  return { memory };
});

describe("MemoryBase", () => {
  it("checks every argument before the storage is reached: a bad call runs no primitive", async () => {
    const memory = new MapMemory();
    const bad: [() => Promise<unknown>, string][] = [
      [() => memory.createSession({ appName: "a", userId: 7 } as never), "INVALID_ARGUMENT"],
      [() => memory.getOrCreateSession({ appName: "a", userId: "u" } as never), "INVALID_SESSION_ID"],
      [() => memory.getSession("../x"), "INVALID_SESSION_ID"],
      [() => memory.listSessions({ userId: 1 } as never), "INVALID_ARGUMENT"],
      [() => memory.deleteSession(""), "INVALID_SESSION_ID"],
      [() => memory.addEvent("s", { eventType: "x" } as never), "INVALID_ARGUMENT"],
      [() => memory.getSessionEvents("s", { eventTypes: "x" } as never), "INVALID_ARGUMENT"],
      [() => memory.buildConversationContext("s", { maxEvents: 1.5 }), "INVALID_ARGUMENT"],
      [() => memory.cleanupOldSessions({ maxAgeHours: -1 }), "INVALID_ARGUMENT"],
      [() => memory.getRecentEvents({ limit: -1 }), "INVALID_ARGUMENT"],
    ];
    for (const [call, code] of bad) {
      const error = await call().catch((e: unknown) => e);
      expect(isAmplifierError(error, code as never), String(call)).toBe(true);
    }
    expect(memory.calls).toBe(0);
  });

  it("names the backend's module in its errors and refuses a config its schema does not accept", async () => {
    const error = await new MapMemory().getSession("a b").catch((e: unknown) => e);
    expect(isAmplifierError(error) && error.details.module).toBe("map-memory");
    const config = (() => {
      try {
        return new MapMemory({ maxSessions: "many" } as never);
      } catch (e) {
        return e;
      }
    })();
    expect(isAmplifierError(config, "INVALID_ARGUMENT") && [config.path, config.module]).toEqual(["config.maxSessions", "map-memory"]);
  });

  it("fills in the limits' defaults of contracts/MEMORY.md", () => {
    const memory = new MapMemory({ maxSessions: 7 });
    expect([memory.contextLimit, memory.maxSessions, memory.maxEventsPerSession]).toEqual([6, 7, 500]);
  });

  it("answers getRecentEvents with limit 0 or no event types without reading the storage", async () => {
    const memory = new MapMemory();
    expect(await memory.getRecentEvents({ limit: 0 })).toEqual([]);
    expect(await memory.getRecentEvents({ limit: 5, eventTypes: [] })).toEqual([]);
    expect(memory.calls).toBe(0);
  });
});
