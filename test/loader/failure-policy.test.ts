import { describe, expect, it, beforeEach } from "vitest";
import { loadConfig } from "../../core/config/load-config.js";
import { Coordinator } from "../../core/coordinator.js";
import type { AmplifierError } from "../../contracts/errors.js";
import { mountConfiguredModules } from "../../core/loader/mount-configured-modules.js";
import type { AmplifierConfig } from "../../contracts/generated/amplifier-config.js";
import { CONFIGS, fixtureLog, resetFixtureLog } from "./support.js";

interface FailedEvent {
  module: string;
  point: string;
  error: Error;
  optional: boolean;
}

/** Mount a fixture config on a fresh coordinator, recording module:mount_failed events. */
async function mountFixture(name: string | AmplifierConfig) {
  const coordinator = new Coordinator();
  const events: FailedEvent[] = [];
  coordinator.hooks.on("module:mount_failed", (event) => events.push(event));
  const loaded = typeof name === "string" ? await loadConfig(`${CONFIGS}/${name}`) : { config: name, baseDir: CONFIGS, file: undefined };
  const outcome = await mountConfiguredModules(coordinator, loaded.config, { baseDir: loaded.baseDir, ...(loaded.file ? { file: loaded.file } : {}) });
  return { coordinator, events, outcome };
}

const statuses = (outcome: { modules: Array<{ path: string; status: string }> }) => Object.fromEntries(outcome.modules.map((m) => [m.path, m.status]));

beforeEach(resetFixtureLog);

describe("failure policy", () => {
  it("optional tools that fail to load or mount are skipped with module:mount_failed {optional: true}", async () => {
    const { coordinator, events, outcome } = await mountFixture("optional-failure.amplifier.config.json");
    expect(outcome.error).toBeUndefined();
    expect(statuses(outcome)).toEqual({ "session.context": "mounted", "tools[0]": "mounted", "tools[1]": "skipped", "tools[2]": "skipped" });
    expect(Object.keys(coordinator.get("tools"))).toEqual(["echo"]);
    expect(events.map((e) => [e.module, e.point, e.optional, (e.error as AmplifierError).code])).toEqual([
      ["../modules/throwing-module.js", "tools", true, "MODULE_MOUNT_FAILED"],
      ["./no-such-tool.js", "tools", true, "MODULE_NOT_FOUND"],
    ]);
  });

  it("a required tool that fails stops the mounting; the event says optional: false", async () => {
    const { events, outcome } = await mountFixture("required-failure.amplifier.config.json");
    expect(outcome.error?.code).toBe("MODULE_MOUNT_FAILED");
    expect(outcome.error?.details).toMatchObject({ module: "../modules/throwing-module.js", path: "tools[1]" });
    expect(statuses(outcome)).toEqual({ "session.context": "mounted", "tools[0]": "mounted", "tools[1]": "failed", "tools[2]": "not-mounted" });
    expect(events).toEqual([{ module: "../modules/throwing-module.js", point: "tools", optional: false, error: outcome.error }]);
    expect(fixtureLog()).not.toContain("mount:echo-tool:never");
  });

  it("the context module is required: its failure fails the session", async () => {
    const { outcome } = await mountFixture({ session: { context: { module: "../modules/empty-context.js" } } });
    expect(outcome.error?.code).toBe("MODULE_MOUNT_FAILED");
    expect(statuses(outcome)).toEqual({ "session.context": "failed" });
  });

  it("the orchestrator is required, even though it mounts last", async () => {
    const { outcome } = await mountFixture({
      session: { context: { module: "../modules/memory-context.mjs" }, orchestrator: { module: "../modules/throwing-module.js" } },
    });
    expect(outcome.error?.details.path).toBe("session.orchestrator");
    expect(statuses(outcome)).toEqual({ "session.context": "mounted", "session.orchestrator": "failed" });
  });

  it("modules are all loaded and their configs checked before any mounts: one required problem is thrown as is", async () => {
    const { outcome, events } = await mountFixture("bad-module-config.amplifier.config.json");
    expect(outcome.error?.code).toBe("INVALID_MODULE_CONFIG");
    expect((outcome.error?.details.errors as AmplifierError[]).map((e) => e.path)).toEqual([
      "session.context.config.max_tokens",
      "session.context.config.label",
    ]);
    expect(outcome.error?.details.file).toBe(`${CONFIGS}/bad-module-config.amplifier.config.json`);
    expect(fixtureLog()).toEqual([]); // nothing mounted
    expect(events).toHaveLength(1);
  });

  it("several required modules that cannot be used are reported together (CONFIG_INVALID, details.errors)", async () => {
    const { outcome } = await mountFixture({
      session: { context: { module: "../modules/memory-context.mjs", config: { label: 1 } } },
      tools: [
        { module: "../modules/no-mount.js", name: "a" },
        { module: "./missing.js", name: "b", optional: true },
        { module: "not-installed-anywhere", name: "c" },
      ],
    });
    expect(outcome.error?.code).toBe("CONFIG_INVALID");
    expect((outcome.error?.details.errors as AmplifierError[]).map((e) => e.code)).toEqual(["INVALID_MODULE_CONFIG", "INVALID_MODULE", "MODULE_NOT_FOUND"]);
    expect(outcome.error?.message).toContain("3 required modules cannot be used");
    expect(outcome.error?.message).toContain("tools[2] (not-installed-anywhere): [MODULE_NOT_FOUND]");
    expect(statuses(outcome)).toEqual({ "session.context": "failed", "tools[0]": "failed", "tools[1]": "skipped", "tools[2]": "failed" });
    expect(fixtureLog()).toEqual([]);
  });

  it("mount order: hooks, context, providers, tools, orchestrator (which sees the tools)", async () => {
    const { outcome } = await mountFixture("full.amplifier.config.json");
    expect(outcome.error).toBeUndefined();
    expect(fixtureLog()).toEqual([
      "mount:@amplifier-fixture/legacy-hook",
      "mount:full",
      "mount:amplifier-fixture-tool",
      "mount:orchestrator:tools=fixture,greet",
    ]);
    expect(outcome.modules.map((m) => [m.path, m.source, m.version])).toEqual([
      ["hooks[0]", "path", undefined],
      ["hooks[1]", "package", undefined],
      ["session.context", "path", "1.2.3"],
      ["tools[0]", "package", "2.0.0"],
      ["tools[1]", "path", "0.0.1"],
      ["session.orchestrator", "path", undefined],
    ]);
  });

  it("hooks mounted first observe later failures", async () => {
    await mountFixture({
      session: { context: { module: "../modules/memory-context.mjs" } },
      hooks: [{ module: "../modules/hook-module.js" }],
      tools: [{ module: "../modules/throwing-module.js", name: "t", optional: true }],
    });
    expect(fixtureLog()).toContain("observed:mount_failed:../modules/throwing-module.js");
  });

  it("each mounted module is announced as module:mounted {module, point, name}", async () => {
    const coordinator = new Coordinator();
    const mounted: unknown[] = [];
    coordinator.hooks.on("module:mounted", (event) => mounted.push(event));
    const config: AmplifierConfig = {
      session: { context: { module: "../modules/memory-context.mjs" } },
      tools: [{ module: "../modules/echo-tool.js", name: "echo" }],
    };
    await mountConfiguredModules(coordinator, config, { baseDir: CONFIGS });
    expect(mounted).toEqual([
      { module: "../modules/memory-context.mjs", point: "context" },
      { module: "../modules/echo-tool.js", point: "tools", name: "echo" },
    ]);
  });

  it("bad arguments throw instead of becoming an outcome: an invalid config, a missing baseDir", async () => {
    await expect(mountConfiguredModules(new Coordinator(), { session: {} } as never, { baseDir: CONFIGS })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      details: { path: "session.context" },
    });
    await expect(mountConfiguredModules(new Coordinator(), { session: { context: { module: "x" } } }, {} as never)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      details: { path: "mountConfiguredModules.options.baseDir" },
    });
  });

  it("the timeout comes from options, else the config file, else the coordinator (default 30 s)", async () => {
    const config: AmplifierConfig = {
      session: { context: { module: "../modules/memory-context.mjs" } },
      hooks: [{ module: "../modules/hanging-module.js" }],
      mountTimeoutMs: 20,
    };
    const fromConfig = await mountConfiguredModules(new Coordinator(), config, { baseDir: CONFIGS });
    expect(fromConfig.error?.details.expected).toBe("mount() to settle within 20 ms");
    const fromOptions = await mountConfiguredModules(new Coordinator(), config, { baseDir: CONFIGS, mountTimeoutMs: 10 });
    expect(fromOptions.error?.details.expected).toBe("mount() to settle within 10 ms");
    const { mountTimeoutMs: _, ...withoutTimeout } = config;
    const fromCoordinator = await mountConfiguredModules(new Coordinator({ mountTimeoutMs: 15 }), withoutTimeout, { baseDir: CONFIGS });
    expect(fromCoordinator.error?.details.expected).toBe("mount() to settle within 15 ms");
    expect(new Coordinator().mountTimeoutMs).toBe(30_000);
  });
});
