import { beforeEach, describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import { loadModule } from "../../core/loader/load-module.js";
import { mountModule } from "../../core/loader/mount-module.js";
import type { ConfigPoint, PlannedModule } from "../../core/loader/plan-modules.js";
import { CONFIGS, fixtureLog, rejection, resetFixtureLog } from "./support.js";
// @ts-expect-error -- a plain-JS fixture without types
import { FixtureMountError } from "../fixtures/modules/throwing-module.js";

function entry(point: ConfigPoint, specifier: string, extra: Partial<PlannedModule> = {}): PlannedModule {
  const index = point === "context" || point === "orchestrator" ? undefined : 0;
  const at = index === undefined ? ["session", point] : [point, index];
  return { point, specifier, name: undefined, config: {}, optional: false, at, path: index === undefined ? `session.${point}` : `${point}[0]`, ...extra };
}

async function mount(coordinator: Coordinator, planned: PlannedModule, timeoutMs = 1_000): Promise<unknown> {
  return mountModule(coordinator, planned, await loadModule(planned.specifier, { baseDir: CONFIGS }), { timeoutMs });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(resetFixtureLog);

describe("mountModule: what mount() returns", () => {
  it("an object is mounted at the entry's point under the entry's name", async () => {
    const coordinator = new Coordinator();
    const tool = await mount(coordinator, entry("tools", "../modules/echo-tool.js", { name: "shout", config: { prefix: "hey" } }));
    expect(coordinator.get("tools", "shout")).toBe(tool);
  });

  it("a context manager returned (not mounted by the module) fills the context slot", async () => {
    const coordinator = new Coordinator();
    const context = await mount(coordinator, entry("context", "../modules/memory-context.mjs"));
    expect(coordinator.get("context")).toBe(context);
  });

  it("a module that mounted itself (Python form) is not mounted twice; its returned function is its cleanup", async () => {
    const coordinator = new Coordinator();
    const cleanup = await mount(coordinator, entry("context", "../modules/self-mounting-context.js"));
    expect(typeof cleanup).toBe("function");
    expect(coordinator.get("context")).toBeDefined();
    await coordinator.cleanup();
    expect(fixtureLog()).toEqual(["mount:self-mounting-context", "cleanup:self-mounting-context"]);
  });

  it("the orchestrator's object is mounted at orchestrator", async () => {
    const coordinator = new Coordinator();
    const orchestrator = await mount(coordinator, entry("orchestrator", "../modules/orchestrator.js"));
    expect(coordinator.get("orchestrator")).toBe(orchestrator);
  });

  it("a context module that leaves the slot empty fails", async () => {
    const error = await rejection(() => mount(new Coordinator(), entry("context", "../modules/empty-context.js")), "MODULE_MOUNT_FAILED");
    expect((error.details.cause as { code?: string }).code).toBe("INVALID_MODULE");
  });

  it("an object that breaks its mount point's contract fails with the coordinator's error as cause", async () => {
    const error = await rejection(() => mount(new Coordinator(), entry("context", "../modules/not-a-context.js")), "MODULE_MOUNT_FAILED");
    expect(error.details).toMatchObject({ module: "../modules/not-a-context.js", causeCode: "MOUNT_CONTRACT_MISMATCH" });
    expect(error.message).toContain("what mount() returned could not be mounted");
  });
});

describe("mountModule: failures", () => {
  it("an error thrown by mount is wrapped: MODULE_MOUNT_FAILED with the module's name, its place, and the cause kept", async () => {
    const error = await rejection(() => mount(new Coordinator(), entry("tools", "../modules/throwing-module.js", { name: "t" })), "MODULE_MOUNT_FAILED");
    expect(error.details).toMatchObject({ module: "../modules/throwing-module.js", path: "tools[0]" });
    expect(error.details.cause).toBeInstanceOf(FixtureMountError);
    expect(error.cause).toBe(error.details.cause);
    expect(error.message).toBe('[MODULE_MOUNT_FAILED] mount() threw: the fixture refuses to mount (module "../modules/throwing-module.js", at tools[0])');
  });

  it("a failed module is rolled back: its cleanups run, its handlers, capabilities and mounts are gone", async () => {
    const coordinator = new Coordinator();
    await rejection(() => mount(coordinator, entry("tools", "../modules/throwing-module.js", { name: "t" })), "MODULE_MOUNT_FAILED");
    expect(fixtureLog()).toEqual(["cleanup:throwing-module"]);
    expect(coordinator.hooks.listHandlers("prompt:submit")).toEqual([]);
    expect(coordinator.getCapability("throwing-module")).toBeUndefined();
    await coordinator.cleanup();
    expect(fixtureLog()).toEqual(["cleanup:throwing-module"]); // ran once, at rollback, not again
  });

  it("a mount that never settles: MODULE_MOUNT_TIMEOUT after the timeout, rolled back", async () => {
    const coordinator = new Coordinator();
    const started = Date.now();
    const error = await rejection(() => mount(coordinator, entry("hooks", "../modules/hanging-module.js"), 50), "MODULE_MOUNT_TIMEOUT");
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(error.details).toMatchObject({ module: "../modules/hanging-module.js", path: "hooks[0]", expected: "mount() to settle within 50 ms" });
    expect(error.details.hint).toContain("mountTimeoutMs");
    expect(fixtureLog()).toEqual(["cleanup:hanging-module"]);
    expect(coordinator.hooks.listHandlers("prompt:submit")).toEqual([]);
  });

  it("a timed-out mount that finishes later may not register anything; the cleanup it returns runs at once", async () => {
    const coordinator = new Coordinator();
    await rejection(() => mount(coordinator, entry("hooks", "../modules/late-module.js", { config: { delayMs: 40 } }), 10), "MODULE_MOUNT_TIMEOUT");
    await sleep(80);
    expect(fixtureLog()).toEqual(["late:refused:MODULE_ABANDONED", "cleanup:late-module"]);
    expect(coordinator.getCapability("late-module")).toBeUndefined();
  });

  it("rollback undoes only what the failing module registered, not what others did", async () => {
    const coordinator = new Coordinator();
    const unrelated = coordinator.hooks.register("prompt:submit", () => undefined, { name: "host-handler" });
    await rejection(() => mount(coordinator, entry("tools", "../modules/throwing-module.js", { name: "t" })), "MODULE_MOUNT_FAILED");
    expect(coordinator.hooks.listHandlers("prompt:submit").map((h) => h.name)).toEqual(["host-handler"]);
    unrelated();
  });
});

describe("mountModule: timeout limits", () => {
  it("Infinity waits for mount however long it takes", async () => {
    const coordinator = new Coordinator();
    const result = await mount(coordinator, entry("hooks", "../modules/late-module.js", { config: { delayMs: 30 } }), Infinity);
    expect(typeof result).toBe("function");
    expect(fixtureLog()).toEqual(["late:registered"]);
  });
});
