import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isContextManager } from "../../contracts/context-manager.js";
import { Coordinator } from "../../core/coordinator.js";
import { createSession } from "../../src/session/index.js";
import { CONFIGS, MODULES, fixtureLog, rejection, resetFixtureLog } from "./support.js";

const originalCwd = process.cwd();

beforeEach(resetFixtureLog);
afterEach(() => process.chdir(originalCwd));

async function emptyDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "amplifier-session-"));
}

describe("createSession(config object)", () => {
  it("the form outside checks use: context-simple with an empty config", async () => {
    const session = await createSession({ session: { context: { module: "context-simple", config: {} } } });
    expect(session.coordinator).toBeInstanceOf(Coordinator);
    expect(session.hooks).toBe(session.coordinator.hooks);
    expect(isContextManager(session.context)).toBe(true);
    expect(session.coordinator.get("context")).toBe(session.context);
    await session.context.addMessage({ role: "user", content: "hi" });
    expect((await session.context.getMessages()).map((m) => m.content)).toEqual(["hi"]);
    await session.close();
  });

  it("relative module paths of an object config resolve from options.cwd", async () => {
    const session = await createSession({ session: { context: { module: "./memory-context.mjs", config: { label: "object" } } } }, { cwd: MODULES });
    expect(session.modules.map((m) => [m.path, m.status])).toEqual([["session.context", "mounted"]]);
    expect(session.configFile).toBeUndefined();
    await session.close();
  });

  it("an invalid object config: CONFIG_INVALID, nothing mounted", async () => {
    const error = await rejection(() => createSession({ session: { context: { module: "context-simple" } }, tool: [] } as never), "CONFIG_INVALID");
    expect(error.details.hint).toBe('did you mean "tools"?');
  });

  it("anything else: INVALID_ARGUMENT", async () => {
    const error = await rejection(() => createSession(42 as never), "INVALID_ARGUMENT");
    expect(error.given).toBe(42);
  });

  it("bad options: INVALID_ARGUMENT naming the option, with a hint for a misspelt one", async () => {
    const config = { session: { context: { module: "./memory-context.mjs" } } };
    const typo = await rejection(() => createSession(config, { mountTimeout: 5 } as never), "INVALID_ARGUMENT");
    expect(typo.details).toMatchObject({ path: "createSession.options.mountTimeout", hint: 'did you mean "mountTimeoutMs"?' });
    const negative = await rejection(() => createSession(config, { mountTimeoutMs: -1 }), "INVALID_ARGUMENT");
    expect(negative.details).toMatchObject({ path: "createSession.options.mountTimeoutMs", expected: "a number of milliseconds greater than 0", given: -1 });
    expect(fixtureLog()).toEqual([]);
  });
});

describe("createSession(path)", () => {
  it("loads the file and mounts every module: context, tools (npm package and .ts), hooks, orchestrator", async () => {
    const session = await createSession(join(CONFIGS, "full.amplifier.config.json"), { sessionId: "s-1" });
    expect(session.coordinator.sessionId).toBe("s-1");
    expect(session.configFile).toBe(join(CONFIGS, "full.amplifier.config.json"));
    expect(session.modules.every((m) => m.status === "mounted")).toBe(true);
    const tools = session.coordinator.get("tools");
    expect(await tools.fixture?.execute({})).toEqual({ output: "hello from npm" });
    expect(await tools.greet?.execute({})).toEqual({ output: "hello ts" });
    await session.hooks.emit("prompt:submit", { prompt: "ping" });
    expect(fixtureLog()).toContain("hook:prompt:ping");
    await session.close();
  });

  it("a path is resolved from options.cwd", async () => {
    const session = await createSession("full.amplifier.config.json", { cwd: CONFIGS });
    expect(session.configFile).toBe(join(CONFIGS, "full.amplifier.config.json"));
    await session.close();
  });

  it("options.mountTimeoutMs overrides the file's", async () => {
    const dir = await emptyDir();
    await writeFile(
      join(dir, "amplifier.config.json"),
      JSON.stringify({ session: { context: { module: `${MODULES}/hanging-module.js` } }, mountTimeoutMs: 60_000 }),
    );
    const error = await rejection(() => createSession(join(dir, "amplifier.config.json"), { mountTimeoutMs: 20 }), "MODULE_MOUNT_TIMEOUT");
    expect(error.details.expected).toBe("mount() to settle within 20 ms");
  });
});

describe("createSession()", () => {
  it("reads ./amplifier.config.json when the working folder has one", async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, "amplifier.config.json"), JSON.stringify({ session: { context: { module: `${MODULES}/memory-context.mjs`, config: { label: "cwd" } } } }));
    process.chdir(dir);
    const session = await createSession();
    expect(session.configFile).toBe(join(process.cwd(), "amplifier.config.json"));
    expect(fixtureLog()).toEqual(["mount:cwd"]);
    await session.close();
  });

  it("mounts context-simple when there is no config file", async () => {
    process.chdir(await emptyDir());
    const session = await createSession();
    expect(session.configFile).toBeUndefined();
    expect(session.modules.map((m) => [m.module, m.source, m.status])).toEqual([["context-simple", "builtin", "mounted"]]);
    expect(isContextManager(session.context)).toBe(true);
    await session.close();
  });
});

describe("session lifecycle", () => {
  it("close() runs every cleanup, newest first; calling it again changes nothing", async () => {
    const session = await createSession(join(CONFIGS, "optional-failure.amplifier.config.json"));
    const first = session.close();
    expect(session.close()).toBe(first);
    await first;
    await session.close();
    expect(fixtureLog()).toEqual(["mount:memory-context", "mount:echo-tool:echo", "cleanup:throwing-module", "cleanup:echo-tool:echo", "cleanup:memory-context"]);
    await rejection(() => session.coordinator.mount("tools", { definition: {}, execute() {} }, "late"), "COORDINATOR_CLOSED");
  });

  it("a session whose mount failed has run the cleanups of what it had mounted, and throws the module's error", async () => {
    const error = await rejection(() => createSession(join(CONFIGS, "required-failure.amplifier.config.json")), "MODULE_MOUNT_FAILED");
    expect(error.details).toMatchObject({ module: "../modules/throwing-module.js", path: "tools[1]" });
    expect(fixtureLog()).toEqual([
      "mount:required-failure",
      "mount:echo-tool:first",
      "cleanup:throwing-module", // the failing module, rolled back
      "cleanup:echo-tool:first", // then everything mounted before it, newest first
      "cleanup:required-failure",
    ]);
  });
});
