import { describe, expect, it, vi } from "vitest";
import { AmplifierError } from "../../../contracts/errors.js";
import { HookBus } from "../../hooks/index.js";

const prompt = { prompt: "hello" };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof AmplifierError ? error.code : `not an AmplifierError: ${String(error)}`;
  }
  return undefined;
}

describe("register", () => {
  it("returns its own unregister; calling it twice is harmless", async () => {
    const bus = new HookBus();
    const handler = vi.fn();
    const unregister = bus.register("prompt:submit", handler);
    await bus.emit("prompt:submit", prompt);
    unregister();
    unregister();
    await bus.emit("prompt:submit", prompt);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("registering the same function twice gives two independent registrations", async () => {
    const bus = new HookBus();
    const handler = vi.fn();
    const first = bus.register("prompt:submit", handler);
    bus.register("prompt:submit", handler);
    first();
    await bus.emit("prompt:submit", prompt);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("unregistering during dispatch does not disturb the running dispatch", async () => {
    const bus = new HookBus();
    const ran: string[] = [];
    let unregisterB = (): void => {};
    const unregisterA = bus.register("prompt:submit", () => {
      ran.push("a");
      unregisterA();
      unregisterB();
    });
    unregisterB = bus.register("prompt:submit", () => void ran.push("b"));
    await bus.emit("prompt:submit", prompt);
    expect(ran).toEqual(["a", "b"]);
    await bus.emit("prompt:submit", prompt);
    expect(ran).toEqual(["a", "b"]);
  });

  it("passes data and a context {event, hook, signal} to the handler", async () => {
    const bus = new HookBus();
    const handler = vi.fn();
    bus.register("prompt:submit", handler, { name: "spy" });
    await bus.emit("prompt:submit", prompt);
    expect(handler).toHaveBeenCalledWith(prompt, { event: "prompt:submit", hook: "spy", signal: expect.any(AbortSignal) });
  });

  it("names handlers by option, else by function name, else <event>#<n>", () => {
    const bus = new HookBus();
    bus.register("prompt:submit", () => undefined, { name: "explicit" });
    bus.register("prompt:submit", function namedFn() {});
    bus.register("prompt:submit", (() => () => undefined)());
    const names = bus.listHandlers("prompt:submit").map((h) => h.name);
    expect(names.slice(0, 2)).toEqual(["explicit", "namedFn"]);
    expect(names[2]).toMatch(/^prompt:submit#\d+$/);
  });

  it("hasListeners: true with a handler, an observer of the event or a wildcard observer; false again once they are gone", () => {
    const bus = new HookBus();
    expect(bus.hasListeners("context:pre_compact")).toBe(false);
    const unregister = bus.register("context:pre_compact", () => undefined);
    expect(bus.hasListeners("context:pre_compact")).toBe(true);
    expect(bus.hasListeners("context:post_compact")).toBe(false);
    unregister();
    expect(bus.hasListeners("context:pre_compact")).toBe(false);
    const observer = () => undefined;
    bus.on("context:pre_compact", observer);
    expect(bus.hasListeners("context:pre_compact")).toBe(true);
    bus.off("context:pre_compact", observer);
    expect(bus.hasListeners("context:pre_compact")).toBe(false);
    const off = bus.on("*", () => undefined);
    expect(bus.hasListeners("context:post_compact")).toBe(true);
    off();
    expect(bus.hasListeners("context:post_compact")).toBe(false);
    expect(codeOf(() => bus.hasListeners("not an event" as never))).toBe("INVALID_EVENT_NAME");
  });

  it("listHandlers reports registrations in dispatch order with their options", () => {
    const bus = new HookBus({ timeoutMs: 500 });
    bus.register("tool:pre", () => undefined, { name: "late", priority: 5 });
    bus.register("tool:pre", () => undefined, { name: "early", priority: -1, failClosed: true, timeoutMs: 50 });
    bus.register("tool:post", () => undefined, { name: "other" });
    expect(bus.listHandlers("tool:pre")).toEqual([
      { event: "tool:pre", name: "early", priority: -1, failClosed: true, timeoutMs: 50 },
      { event: "tool:pre", name: "late", priority: 5, failClosed: false, timeoutMs: 500 },
    ]);
    expect(bus.listHandlers().map((h) => h.name).sort()).toEqual(["early", "late", "other"]);
  });

  it.each([
    [{ priority: Number.NaN }, "options.priority"],
    [{ priority: Infinity }, "options.priority"],
    [{ timeoutMs: 0 }, "options.timeoutMs"],
    [{ name: "" }, "options.name"],
    [{ failClosed: "yes" }, "options.failClosed"],
    [{ prio: 1 }, "options.prio"],
  ])("rejects bad options %j with INVALID_ARGUMENT at %s", (options, path) => {
    const bus = new HookBus();
    try {
      bus.register("prompt:submit", () => undefined, options as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT", details: { path, event: "prompt:submit" } });
    }
  });

  it("rejects a handler that is not a function", () => {
    expect(codeOf(() => new HookBus().register("prompt:submit", "nope" as never))).toBe("INVALID_ARGUMENT");
  });

  it("rejects bad bus options", () => {
    expect(codeOf(() => new HookBus({ timeoutMs: -1 }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => new HookBus({ colour: "red" } as never))).toBe("INVALID_ARGUMENT");
  });
});

describe("event names", () => {
  it.each(["tool", "Tool:pre", "tool:", ":pre", "tool pre", "a:b:c:d", "", 42])(
    "%j is rejected with INVALID_EVENT_NAME at register, emit, on and off",
    (name) => {
      const bus = new HookBus();
      expect(codeOf(() => bus.register(name as never, () => undefined))).toBe("INVALID_EVENT_NAME");
      expect(codeOf(() => bus.on(name as never, () => undefined))).toBe("INVALID_EVENT_NAME");
      expect(codeOf(() => bus.off(name as never, () => undefined))).toBe("INVALID_EVENT_NAME");
      return expect(bus.emit(name as never, {} as never)).rejects.toMatchObject({ code: "INVALID_EVENT_NAME" });
    },
  );

  it("accepts namespace:action and a :variant suffix", () => {
    const bus = new HookBus();
    expect(() => bus.register("context:message_added" as never, () => undefined)).not.toThrow();
    expect(() => bus.register("session:start:debug" as never, () => undefined)).not.toThrow();
    expect(() => bus.register("content_block:start", () => undefined)).not.toThrow();
  });

  it("suggests the repaired spelling", () => {
    try {
      new HookBus().register("Tool.Pre" as never, () => undefined);
      expect.unreachable();
    } catch (error) {
      expect((error as AmplifierError).details.hint).toBe('did you mean "tool:pre"?');
    }
  });
});

describe("observers (on / off, mitt)", () => {
  it("see every emit first, with the data as emitted, and cannot change the result", async () => {
    const bus = new HookBus();
    const seen: string[] = [];
    bus.on("prompt:submit", (data) => void seen.push(`observer:${data.prompt}`));
    bus.register("prompt:submit", (d) => {
      seen.push(`handler:${d.prompt}`);
      return { action: "modify", data: { prompt: "changed" } };
    });
    const result = await bus.emit("prompt:submit", prompt);
    expect(seen).toEqual(["observer:hello", "handler:hello"]);
    expect(result.data).toEqual({ prompt: "changed" });
  });

  it("on returns its unregister; off removes an observer", async () => {
    const bus = new HookBus();
    const a = vi.fn();
    const b = vi.fn();
    const stopA = bus.on("prompt:submit", a);
    bus.on("prompt:submit", b);
    stopA();
    bus.off("prompt:submit", b);
    await bus.emit("prompt:submit", prompt);
    expect(a).not.toHaveBeenCalled();
    expect(b).not.toHaveBeenCalled();
  });

  it('"*" observes every event as (event, data)', async () => {
    const bus = new HookBus();
    const all = vi.fn();
    bus.on("*", all);
    await bus.emit("prompt:submit", prompt);
    await bus.emit("cancel:completed");
    expect(all.mock.calls).toEqual([["prompt:submit", prompt], ["cancel:completed", undefined]]);
  });

  it("a throwing or rejecting observer is reported as hook:error and the emit goes on", async () => {
    const bus = new HookBus();
    const reports: Array<{ event: string; hook: string }> = [];
    bus.on("hook:error", (r) => void reports.push({ event: r.event, hook: r.hook }));
    bus.on("prompt:submit", function brokenObserver() {
      throw new Error("observer bug");
    });
    bus.on("prompt:submit", (async function rejectingObserver() {
      throw new Error("async observer bug");
    }) as never);
    const handler = vi.fn();
    bus.register("prompt:submit", handler);
    await bus.emit("prompt:submit", prompt);
    await new Promise((r) => setTimeout(r, 0));
    expect(handler).toHaveBeenCalled();
    expect(reports).toEqual([
      { event: "prompt:submit", hook: "brokenObserver" },
      { event: "prompt:submit", hook: "rejectingObserver" },
    ]);
  });

  it("a throwing hook:error observer goes to onUnreportedError instead of looping", async () => {
    const unreported = vi.fn();
    const bus = new HookBus({ onUnreportedError: unreported });
    bus.on("hook:error", () => {
      throw new Error("logger broken");
    });
    bus.on("prompt:submit", () => {
      throw new Error("observer bug");
    });
    await bus.emit("prompt:submit", prompt);
    await new Promise((r) => setTimeout(r, 0));
    expect(unreported).toHaveBeenCalledTimes(1);
    expect(unreported.mock.calls[0]![0]).toMatchObject({ code: "HOOK_FAILED", details: { event: "hook:error" } });
  });
});
