import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Provider, Tool } from "@amplifier-ts/contracts";
import { createSession } from "../../src/session/index.js";
import { MemoryTool, PINNED_DEFAULTS } from "../../modules/memory-tool/index.js";

/**
 * The built-in as amplifier.config.json lists it: `{ "name": "memory", "module": "memory-tool",
 * "config": { "storagePath": … } }` mounts a MemoryTool at `tools` under `memory`, its relative
 * storagePath starting at the config's folder; pinned files reach the next request as an
 * ephemeral instruction within their budget, reported as context:include.
 */
describe("the memory-tool built-in in a session", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-memory-session-"));
    dirs.push(dir);
    return dir;
  };
  const provider = (contextWindow: number): Provider => ({
    getInfo: () => ({ id: "fake", defaults: { model: "gpt-4o-mini", context_window: contextWindow, max_output_tokens: 1000 } }),
    complete: async () => ({ role: "assistant", content: "ok" }),
  }) as unknown as Provider;

  it("mounts `memory` at tools, files under storagePath relative to the config's folder, in the agent's tree", async () => {
    const cwd = await folder();
    const session = await createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { storagePath: "mem" } }] }, { cwd });
    try {
      const tool = session.coordinator.get("tools", "memory") as Tool;
      expect(tool).toBeInstanceOf(MemoryTool);
      expect(tool.definition.function.name).toBe("memory");
      expect((tool as MemoryTool).anthropicDefinition).toEqual({ type: "memory_20250818", name: "memory" });
      expect(await tool.execute({ command: "create", path: "/memories/notes.md", file_text: "hello\n" })).toEqual({ output: "File created successfully at: /memories/notes.md" });
      expect(await readdir(join(cwd, "mem", "default"))).toEqual(["notes.md"]);
    } finally {
      await session.close();
    }
  });

  it("refuses a bad config when the session mounts it", async () => {
    const cwd = await folder();
    await expect(createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { storagePath: "m", store: { type: "file" } } }] }, { cwd })).rejects.toMatchObject({ code: expect.stringMatching(/INVALID_MODULE_CONFIG|MODULE_MOUNT_FAILED/) });
    await expect(createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { maxFiles: 0 } }] }, { cwd })).rejects.toMatchObject({ code: expect.stringMatching(/INVALID_MODULE_CONFIG|MODULE_MOUNT_FAILED/) });
  });

  it("offers /memories/pinned/ files before each prompt as one ephemeral instruction, whole files within the budget", async () => {
    const cwd = await folder();
    const session = await createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { storagePath: "mem", pinned: { share: 0.5, maxTokens: 60 } } }] }, { cwd });
    try {
      await session.coordinator.mount("providers", provider(100_000), "fake");
      const included: { content: string; ephemeral: boolean }[] = [];
      session.coordinator.hooks.on("context:include", (data) => included.push(data));
      const tool = session.coordinator.get("tools", "memory")!;
      const submit = async () => {
        const result = await session.coordinator.hooks.emit("prompt:submit", { prompt: "next" });
        await session.coordinator.processHookResult(result, "prompt:submit", result.decidedBy ?? "test");
        return session.coordinator.takeEphemeralInjections();
      };
      expect(await submit()).toEqual([]);
      await tool.execute({ command: "create", path: "/memories/pinned/plan.md", file_text: "Step 1: write the tests.\n" });
      await tool.execute({ command: "create", path: "/memories/pinned/zz-long.md", file_text: "word ".repeat(200) });
      await tool.execute({ command: "create", path: "/memories/other.md", file_text: "not pinned" });
      const [message, ...rest] = await submit();
      expect(rest).toEqual([]);
      expect(message).toMatchObject({ role: "system", metadata: { ephemeral: true } });
      const content = String(message!.content);
      expect(content).toContain('<memory_file path="/memories/pinned/plan.md">\nStep 1: write the tests.\n\n</memory_file>');
      expect(content).not.toContain("word word");
      expect(content).toContain("over the pinned budget of 60 tokens; view them with the memory tool): /memories/pinned/zz-long.md");
      expect(content).not.toContain("not pinned");
      expect(included.at(-1)).toMatchObject({ ephemeral: true, content });
      // Edited through the tool, seen at the next prompt.
      await tool.execute({ command: "str_replace", path: "/memories/pinned/plan.md", old_str: "Step 1", new_str: "Step 2" });
      expect(String((await submit())[0]!.content)).toContain("Step 2: write the tests.");
    } finally {
      await session.close();
    }
  });

  it("stays within share × the provider's window when that is below maxTokens", async () => {
    const cwd = await folder();
    const session = await createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { storagePath: "mem" } }] }, { cwd });
    try {
      await session.coordinator.mount("providers", provider(2_000), "fake");
      const tool = session.coordinator.get("tools", "memory")!;
      await tool.execute({ command: "create", path: "/memories/pinned/a.md", file_text: "alpha ".repeat(5) });
      await tool.execute({ command: "create", path: "/memories/pinned/b.md", file_text: "beta ".repeat(100) });
      const result = await session.coordinator.hooks.emit("prompt:submit", { prompt: "next" });
      await session.coordinator.processHookResult(result, "prompt:submit", "test");
      const content = String(session.coordinator.takeEphemeralInjections()[0]!.content);
      const budget = Math.floor(PINNED_DEFAULTS.share * 2_000);
      expect(content).toContain(`over the pinned budget of ${budget} tokens`);
      expect(content).toContain("alpha alpha");
      expect(content).not.toContain("beta beta");
    } finally {
      await session.close();
    }
  });

  it("pinned: false registers no hook", async () => {
    const cwd = await folder();
    const session = await createSession({ session: { context: { module: "context-simple" } }, tools: [{ name: "memory", module: "memory-tool", config: { storagePath: "mem", pinned: false } }] }, { cwd });
    try {
      await session.coordinator.get("tools", "memory")!.execute({ command: "create", path: "/memories/pinned/a.md", file_text: "alpha" });
      const result = await session.coordinator.hooks.emit("prompt:submit", { prompt: "next" });
      await session.coordinator.processHookResult(result, "prompt:submit", "test");
      expect(session.coordinator.takeEphemeralInjections()).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
