import { describe, expect, it } from "vitest";
import type { Provider } from "../../../contracts/provider.js";
import type { Tool } from "../../../contracts/tool.js";
import { Coordinator } from "../../coordinator.js";
import { FakeContextManager } from "./fake-context-manager.js";

const provider = (id: string): Provider => ({ getInfo: () => ({ id }) });
const tool = (name: string): Tool => ({
  definition: { type: "function", function: { name } },
  execute: () => ({ output: name }),
});
const orchestrator = { execute: async () => "done" };

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; details?: Record<string, unknown>; message?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string };
  }
  throw new Error("expected a rejection");
}

describe("Coordinator construction", () => {
  it("has a random session id unless given one, the config, and its own hook bus", () => {
    const a = new Coordinator();
    const b = new Coordinator({ sessionId: "s-1", config: { x: 1 } });
    expect(a.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.sessionId).toBe("s-1");
    expect(b.config).toEqual({ x: 1 });
    expect(Object.isFrozen(b.config)).toBe(true);
    expect(a.hooks).not.toBe(b.hooks);
    expect(a.maxInjectionBytes).toBe(64 * 1024);
  });

  it.each([
    [{ sessionId: "" }, "options.sessionId"],
    [{ maxInjectionBytes: 0 }, "options.maxInjectionBytes"],
    [{ maxInjectionBytes: 1.5 }, "options.maxInjectionBytes"],
    [{ maxInjectionTotalBytes: 0 }, "options.maxInjectionTotalBytes"],
    [{ mountTimeoutMs: -1 }, "options.mountTimeoutMs"],
    [{ config: [] }, "options.config"],
    [{ sesionId: "x" }, "options.sesionId"],
  ])("rejects bad options %j with INVALID_ARGUMENT at %s", (options, path) => {
    expect(() => new Coordinator(options as never)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path }));
  });

  it("passes hookTimeoutMs to its bus", () => {
    expect(new Coordinator({ hookTimeoutMs: 123 }).hooks.timeoutMs).toBe(123);
  });
});

describe("single slots: orchestrator and context", () => {
  it("mount, get and unmount", async () => {
    const c = new Coordinator();
    const ctx = new FakeContextManager();
    await c.mount("orchestrator", orchestrator);
    await c.mount("context", ctx);
    expect(c.get("orchestrator")).toBe(orchestrator);
    expect(c.get("context")).toBe(ctx);
    await c.unmount("context");
    expect(c.get("context")).toBeUndefined();
  });

  it('accepts the Python contract form mount("session", ctx, "context") as the context slot', async () => {
    const c = new Coordinator();
    const ctx = new FakeContextManager();
    await c.mount("session", ctx, "context");
    expect(c.get("context")).toBe(ctx);
    expect(c.get("session", "context")).toBe(ctx);
    await c.unmount("session", "context");
    expect(c.get("context")).toBeUndefined();
  });

  it('rejects "session" with any other name as UNKNOWN_MOUNT_POINT', async () => {
    const error = await rejection(new Coordinator().mount("session", new FakeContextManager(), "memory"));
    expect(error.code).toBe("UNKNOWN_MOUNT_POINT");
  });

  it("an occupied single slot is MOUNT_SLOT_OCCUPIED and keeps the first module", async () => {
    const c = new Coordinator();
    const first = new FakeContextManager();
    await c.mount("context", first, "context-simple");
    const error = await rejection(c.mount("session", new FakeContextManager(), "context"));
    expect(error.code).toBe("MOUNT_SLOT_OCCUPIED");
    expect(error.message).toContain("context-simple");
    expect(c.get("context")).toBe(first);
  });

  it("a context that is not a ContextManager is MOUNT_CONTRACT_MISMATCH naming what is missing", async () => {
    const error = await rejection(new Coordinator().mount("context", { addMessage() {} }));
    expect(error.code).toBe("MOUNT_CONTRACT_MISMATCH");
    expect(error.message).toContain("getMessagesForRequest");
  });
});

describe("named points: providers and tools", () => {
  it("hold many modules by unique name; get without a name lists them", async () => {
    const c = new Coordinator();
    const openai = provider("openai");
    await c.mount("providers", openai, "openai");
    await c.mount("providers", provider("anthropic"), "anthropic");
    await c.mount("tools", tool("bash"), "bash");
    expect(c.get("providers", "openai")).toBe(openai);
    expect(Object.keys(c.get("providers"))).toEqual(["openai", "anthropic"]);
    expect(c.get("tools", "bash")?.definition.function.name).toBe("bash");
    expect(c.get("tools", "nope")).toBeUndefined();
    await c.unmount("providers", "openai");
    expect(Object.keys(c.get("providers"))).toEqual(["anthropic"]);
  });

  it("the listing is a snapshot, not a live view", async () => {
    const c = new Coordinator();
    const listing = c.get("tools");
    await c.mount("tools", tool("bash"), "bash");
    expect(listing).toEqual({});
  });

  it("a missing name is MOUNT_NAME_REQUIRED", async () => {
    const c = new Coordinator();
    expect((await rejection(c.mount("tools", tool("bash")))).code).toBe("MOUNT_NAME_REQUIRED");
    expect((await rejection(c.unmount("providers"))).code).toBe("MOUNT_NAME_REQUIRED");
  });

  it("a duplicate name is DUPLICATE_MOUNT_NAME and keeps the first module", async () => {
    const c = new Coordinator();
    const first = tool("bash");
    await c.mount("tools", first, "bash");
    const error = await rejection(c.mount("tools", tool("bash"), "bash"));
    expect(error.code).toBe("DUPLICATE_MOUNT_NAME");
    expect(c.get("tools", "bash")).toBe(first);
  });

  it("a provider without getInfo or a tool without execute is MOUNT_CONTRACT_MISMATCH", async () => {
    const c = new Coordinator();
    expect((await rejection(c.mount("providers", {}, "p"))).code).toBe("MOUNT_CONTRACT_MISMATCH");
    expect((await rejection(c.mount("tools", { definition: {} }, "t"))).code).toBe("MOUNT_CONTRACT_MISMATCH");
    expect((await rejection(c.mount("orchestrator", undefined))).code).toBe("MOUNT_CONTRACT_MISMATCH");
  });

  it("an empty or non-string name is INVALID_ARGUMENT", async () => {
    const c = new Coordinator();
    expect((await rejection(c.mount("tools", tool("x"), ""))).code).toBe("INVALID_ARGUMENT");
    expect((await rejection(c.mount("tools", tool("x"), 7 as never))).code).toBe("INVALID_ARGUMENT");
  });
});

describe("unknown points and empty slots", () => {
  it.each([["hooks", "coordinator.hooks"], ["tool", 'did you mean "tools"?'], ["Providers", 'did you mean "providers"?'], ["scratchpad", undefined]])(
    "%s is UNKNOWN_MOUNT_POINT at mount, get and unmount (hint: %s)",
    async (point, hint) => {
      const c = new Coordinator();
      const error = await rejection(c.mount(point as never, {}, "x"));
      expect(error.code).toBe("UNKNOWN_MOUNT_POINT");
      if (hint) expect(error.message).toContain(hint);
      expect(() => c.get(point as never)).toThrow(expect.objectContaining({ code: "UNKNOWN_MOUNT_POINT" }));
      expect((await rejection(c.unmount(point as never, "x"))).code).toBe("UNKNOWN_MOUNT_POINT");
    },
  );

  it("memory is a single slot whose contract is checked at mount (contracts/MEMORY.md)", async () => {
    const c = new Coordinator();
    const error = await rejection(c.mount("memory", { createSession() {} }));
    expect(error.code).toBe("MOUNT_CONTRACT_MISMATCH");
    expect(String(error.details?.given)).toContain("addEvent");
  });

  it("unmounting an empty slot or an unknown name is NOT_MOUNTED", async () => {
    const c = new Coordinator();
    expect((await rejection(c.unmount("context"))).code).toBe("NOT_MOUNTED");
    expect((await rejection(c.unmount("tools", "bash"))).code).toBe("NOT_MOUNTED");
  });

  it("nothing can be mounted after cleanup (COORDINATOR_CLOSED)", async () => {
    const c = new Coordinator();
    await c.cleanup();
    expect((await rejection(c.mount("context", new FakeContextManager()))).code).toBe("COORDINATOR_CLOSED");
  });
});
