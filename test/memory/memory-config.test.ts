import { describe, expect, it } from "vitest";
import { resolveMemoryRef } from "../../src/session/memory-from-environment.js";
import { createSession } from "../../src/session/index.js";
import { isAmplifierError, MEMORY_CAPABILITY, type Memory } from "../../contracts/index.js";
import type { LocalMemory } from "../../modules/memory-local/index.js";

describe("memory configuration: amplifier.config.json \"memory\" over the MEMORY_* variables", () => {
  it("without the file entry and the variables there is no memory", () => {
    expect(resolveMemoryRef(undefined, {})).toBeUndefined();
  });

  it("the variables choose the module and its limits (MEMORY_ENABLED=false → memory-null)", () => {
    expect(resolveMemoryRef(undefined, { MEMORY_TYPE: "redis", MEMORY_MAX_SESSIONS: "50", MEMORY_MAX_SESSION_EVENTS: "20", MEMORY_CONTEXT_LIMIT: "3" })).toEqual({
      module: "memory-redis",
      config: { contextLimit: 3, maxSessions: 50, maxEventsPerSession: 20 },
    });
    expect(resolveMemoryRef(undefined, { MEMORY_ENABLED: "true" })).toEqual({ module: "memory-local", config: {} });
    expect(resolveMemoryRef(undefined, { MEMORY_ENABLED: "false", MEMORY_TYPE: "local" })?.module).toBe("memory-null");
  });

  it("the file wins over the variables, key by key", () => {
    const ref = resolveMemoryRef({ module: "memory-postgres", config: { maxSessions: 7 } }, { MEMORY_ENABLED: "false", MEMORY_MAX_SESSIONS: "50", MEMORY_CONTEXT_LIMIT: "3" });
    expect(ref).toEqual({ module: "memory-postgres", config: { maxSessions: 7, contextLimit: 3 } });
  });

  it("bad values are CONFIG_INVALID naming the variable and what it accepts", () => {
    for (const [name, value, expected] of [["MEMORY_MAX_SESSIONS", "many", "a whole number ≥ 1"], ["MEMORY_MAX_SESSION_EVENTS", "0", "a whole number ≥ 1"], ["MEMORY_TYPE", "mongo", "one of local, null, postgres, redis"], ["MEMORY_ENABLED", "maybe", "true or false (also 1/0, yes/no, on/off)"]] as const) {
      let error: unknown;
      try {
        resolveMemoryRef(undefined, { [name]: value });
      } catch (e) {
        error = e;
      }
      expect(isAmplifierError(error, "CONFIG_INVALID") && [error.path, error.expected, error.given]).toEqual([`env.${name}`, expected, value]);
    }
  });

  it("createSession mounts the file's memory at the memory point and offers the capability; a bad limit in the file is a typed error", async () => {
    const session = await createSession({ session: { context: { module: "context-simple" } }, memory: { module: "memory-local", config: { maxSessions: 10, maxEventsPerSession: 3 } } });
    const memory = session.coordinator.getCapability<Memory>(MEMORY_CAPABILITY) as LocalMemory;
    expect(session.coordinator.get("memory")).toBe(memory);
    expect([memory.kind, memory.maxSessions, memory.maxEventsPerSession]).toEqual(["local", 10, 3]);
    await session.close();
    const error = await createSession({ session: { context: { module: "context-simple" } }, memory: { module: "memory-local", config: { maxSessions: 0 } } }).catch((e: unknown) => e);
    expect(isAmplifierError(error) && error.path).toMatch(/memory\.config\.maxSessions/);
  });
});
