import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Message } from "../../contracts/generated/message.js";
import { defineStrategy, STRATEGIES_CAPABILITY } from "../../contracts/strategy-definition.js";
import { Coordinator } from "../../core/coordinator.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { createStrategyRegistry, strategyRegistry } from "../../modules/strategies/registry.js";
import { assistant, system, user } from "../../modules/strategies/test/helpers.js";

/** A custom strategy: keeps instructions and the last `keep` other messages. */
const keepLast = defineStrategy({
  name: "test-keep-last",
  description: "instructions + the last `keep` messages",
  optionsSchema: z.object({ keep: z.number().int().positive().default(2) }).strict(),
  create: (options) => ({
    name: "test-keep-last",
    compact: (messages: Message[]) => {
      const rest = messages.filter((m) => m.role !== "system");
      return [...messages.filter((m) => m.role === "system"), ...rest.slice(-options.keep)];
    },
  }),
});

const history = () => [system("rules"), user("q1"), assistant("a1"), user("q2"), assistant("a2")];
const coordinators: Coordinator[] = [];
afterEach(async () => {
  for (const c of coordinators.splice(0)) await c.cleanup();
});

describe("strategies are registered per context manager, not process-wide", () => {
  it("registered through one coordinator's capability \"strategies\": usable in that session, unknown in another", async () => {
    const a = new Coordinator({ sessionId: "a" });
    const b = new Coordinator({ sessionId: "b" });
    coordinators.push(a, b);
    a.registerCapability(STRATEGIES_CAPABILITY, [keepLast]);

    const context = await mountSimple(a, { strategies: [{ use: "test-keep-last", keep: 2 }] });
    await context.setMessages(history());
    const window = await context.getMessagesForRequest(100_000);
    expect(window.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(context.explainLastWindow()?.strategies).toEqual(["test-keep-last", "window"]);

    await expect(mountSimple(b, { strategies: [{ use: "test-keep-last" }] })).rejects.toMatchObject({ code: "UNKNOWN_STRATEGY" });
    expect(strategyRegistry.get("test-keep-last")).toBeUndefined();
  });

  it("registered through one manager's init: unknown to another manager and to the built-in catalogue", () => {
    const one = new HistoryContextManager({ moduleName: "one", strategyDefinitions: [keepLast], options: { strategies: [{ use: "test-keep-last" }] } });
    expect(one.strategyRegistry.get("test-keep-last")).toBe(keepLast);
    expect(() => new HistoryContextManager({ moduleName: "two", options: { strategies: [{ use: "test-keep-last" }] } })).toThrowError(
      expect.objectContaining({ code: "UNKNOWN_STRATEGY" }),
    );
    expect(strategyRegistry.names()).not.toContain("test-keep-last");
  });

  it("registered on a manager's registry after creation: still that manager's alone", () => {
    const one = new HistoryContextManager({ moduleName: "one" });
    const two = new HistoryContextManager({ moduleName: "two" });
    const unregister = one.strategyRegistry.register(keepLast);
    expect(one.strategyRegistry.names()).toContain("test-keep-last");
    expect(two.strategyRegistry.get("test-keep-last")).toBeUndefined();
    unregister();
    expect(one.strategyRegistry.get("test-keep-last")).toBeUndefined();
  });

  it("a manager's registry reads the built-ins through and refuses to shadow them", () => {
    const registry = createStrategyRegistry();
    expect(registry.names()).toEqual(strategyRegistry.names());
    expect(registry.create({ use: "sliding-window", maxMessages: 4 }).name).toBe("sliding-window");
    expect(() => registry.register({ ...keepLast, name: "sliding-window" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("a capability that is not a list of strategy definitions is a typed error at mount", async () => {
    const coordinator = new Coordinator();
    coordinators.push(coordinator);
    coordinator.registerCapability(STRATEGIES_CAPABILITY, { name: "not-a-list" });
    await expect(mountSimple(coordinator, {})).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("strategies") });
  });
});
