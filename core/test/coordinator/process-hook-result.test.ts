import { describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../../contracts/events.js";
import { Coordinator } from "../../coordinator.js";
import { FakeContextManager } from "./fake-context-manager.js";

async function setup(options: ConstructorParameters<typeof Coordinator>[0] = {}) {
  const coordinator = new Coordinator(options);
  const context = new FakeContextManager();
  await coordinator.mount("context", context);
  const includes: AmplifierEvents["context:include"][] = [];
  const displayed: AmplifierEvents["user:message"][] = [];
  coordinator.hooks.on("context:include", (e) => void includes.push(e));
  coordinator.hooks.on("user:message", (e) => void displayed.push(e));
  return { coordinator, context, includes, displayed };
}

describe("processHookResult: inject_context", () => {
  it("stores a message with role system, metadata.source 'hook', the hook and the event, and emits context:include", async () => {
    const { coordinator, context, includes } = await setup();
    const outcome = await coordinator.processHookResult(
      { action: "inject_context", context_injection: "Repository uses pnpm." },
      "prompt:submit",
      "repo-facts",
    );

    expect(context.stored).toHaveLength(1);
    const [stored] = context.stored;
    expect(stored).toMatchObject({
      role: "system",
      content: "Repository uses pnpm.",
      metadata: { source: "hook", hook: "repo-facts", event: "prompt:submit" },
    });
    expect(stored!.metadata!.ephemeral).toBeUndefined();
    expect(stored!.metadata!.id).toEqual(expect.any(String));
    expect(includes).toEqual([
      { source: "hook", content: "Repository uses pnpm.", ephemeral: false, role: "system", hook: "repo-facts", event: "prompt:submit" },
    ]);
    expect(outcome).toEqual({ action: "inject_context", injected: [stored] });
  });

  it("uses context_injection_role when given", async () => {
    const { coordinator, context } = await setup();
    await coordinator.processHookResult({ action: "inject_context", context_injection: "x", context_injection_role: "user" }, "tool:post", "h");
    expect(context.stored[0]?.role).toBe("user");
  });

  it("does not store an ephemeral injection: it is returned and held for the current request only", async () => {
    const { coordinator, context, includes } = await setup();
    const outcome = await coordinator.processHookResult(
      { action: "inject_context", context_injection: "Current time: 12:00", ephemeral: true },
      "provider:request",
      "clock",
    );

    expect(context.stored).toEqual([]);
    const message = outcome.injected?.[0];
    expect(message).toMatchObject({ role: "system", content: "Current time: 12:00", metadata: { source: "hook", hook: "clock", ephemeral: true } });
    expect(includes[0]).toMatchObject({ ephemeral: true, content: "Current time: 12:00" });
    expect(coordinator.takeEphemeralInjections()).toEqual([message]);
    expect(coordinator.takeEphemeralInjections()).toEqual([]); // taken once, for one request
  });

  it("applies every injection of a folded emit, in order, each under its own hook", async () => {
    const { coordinator, context } = await setup();
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: "A" }), { name: "a" });
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: "B", ephemeral: true }), { name: "b" });
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: "C" }), { name: "c" });
    const folded = await coordinator.hooks.emit("prompt:submit", { prompt: "hi" });

    const outcome = await coordinator.processHookResult(folded, "prompt:submit", "hooks");

    expect(context.stored.map((m) => [m.content, m.metadata?.hook])).toEqual([["A", "a"], ["C", "c"]]);
    expect(coordinator.takeEphemeralInjections().map((m) => [m.content, m.metadata?.hook])).toEqual([["B", "b"]]);
    expect(outcome.injected?.map((m) => m.content)).toEqual(["A", "B", "C"]);
  });

  it("refuses an injection over maxInjectionBytes with INJECTION_TOO_LARGE, storing nothing", async () => {
    const { coordinator, context, includes } = await setup({ maxInjectionBytes: 16 });
    const folded = {
      action: "inject_context" as const,
      injections: [
        { content: "small", role: "system" as const, ephemeral: false, hook: "a" },
        { content: "é".repeat(9), role: "system" as const, ephemeral: false, hook: "big" }, // 18 UTF-8 bytes
      ],
    };
    await expect(coordinator.processHookResult(folded, "prompt:submit", "hooks")).rejects.toMatchObject({
      code: "INJECTION_TOO_LARGE",
      details: { hook: "big", event: "prompt:submit", bytes: 18, limit: 16 },
    });
    expect(context.stored).toEqual([]);
    expect(includes).toEqual([]);
  });

  it("a refused result has no side effect at all: its user_message is not displayed either", async () => {
    const { coordinator, displayed } = await setup({ maxInjectionBytes: 4 });
    await expect(
      coordinator.processHookResult({ action: "inject_context", context_injection: "too long", user_message: "injected!" }, "prompt:submit", "h"),
    ).rejects.toMatchObject({ code: "INJECTION_TOO_LARGE" });
    expect(displayed).toEqual([]);
  });

  it("caps the total of one emit's injections with maxInjectionTotalBytes: INJECTION_TOO_LARGE naming the total, nothing stored (issue 14, item 3)", async () => {
    const { coordinator, context, includes } = await setup({ maxInjectionBytes: 64 * 1024, maxInjectionTotalBytes: 80 * 1024 });
    const note = "n".repeat(41 * 1024); // each under the per-injection limit; together over the total
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: note }), { name: "repo-notes" });
    coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: note }), { name: "open-files" });
    const folded = await coordinator.hooks.emit("prompt:submit", { prompt: "hi" });
    await expect(coordinator.processHookResult(folded, "prompt:submit", "hooks")).rejects.toMatchObject({
      code: "INJECTION_TOO_LARGE",
      details: { hook: "repo-notes, open-files", event: "prompt:submit", bytes: 2 * 41 * 1024, limit: 80 * 1024, injections: 2, expected: expect.stringContaining("maxInjectionTotalBytes") },
    });
    expect(context.stored).toEqual([]);
    expect(includes).toEqual([]);
  });

  it("injections totalling exactly maxInjectionTotalBytes are accepted; the default total is 128 KiB", async () => {
    const { coordinator, context } = await setup({ maxInjectionTotalBytes: 8 });
    const folded = {
      action: "inject_context" as const,
      injections: [
        { content: "abcd", role: "system" as const, ephemeral: false, hook: "a" },
        { content: "efgh", role: "system" as const, ephemeral: true, hook: "b" },
      ],
    };
    await coordinator.processHookResult(folded, "prompt:submit", "hooks");
    expect(context.stored).toHaveLength(1);
    expect(coordinator.takeEphemeralInjections()).toHaveLength(1);
    expect(new Coordinator().maxInjectionTotalBytes).toBe(128 * 1024);
  });

  it("an injection of exactly maxInjectionBytes is accepted", async () => {
    const { coordinator, context } = await setup({ maxInjectionBytes: 4 });
    await coordinator.processHookResult({ action: "inject_context", context_injection: "abcd" }, "prompt:submit", "h");
    expect(context.stored).toHaveLength(1);
  });

  it("without a mounted context is NO_CONTEXT_MOUNTED", async () => {
    const coordinator = new Coordinator();
    await expect(
      coordinator.processHookResult({ action: "inject_context", context_injection: "x" }, "prompt:submit", "h"),
    ).rejects.toMatchObject({ code: "NO_CONTEXT_MOUNTED", details: { hook: "h", event: "prompt:submit" } });
  });

  it("applies injections collected before a later deny", async () => {
    const { coordinator, context } = await setup();
    coordinator.hooks.register("tool:pre", () => ({ action: "inject_context", context_injection: "why it matters" }), { name: "a" });
    coordinator.hooks.register("tool:pre", () => ({ action: "deny", reason: "blocked" }), { name: "guard" });
    const folded = await coordinator.hooks.emit("tool:pre", { tool: "bash", callId: "1", input: {} });
    const outcome = await coordinator.processHookResult(folded, "tool:pre", "hooks");
    expect(outcome).toMatchObject({ action: "deny", reason: "blocked" });
    expect(context.stored.map((m) => m.content)).toEqual(["why it matters"]);
  });
});

describe("processHookResult: other actions", () => {
  it("emits user_message as user:message for display, with level and hook", async () => {
    const { coordinator, displayed } = await setup();
    const outcome = await coordinator.processHookResult(
      { action: "continue", user_message: "Lint passed", user_message_level: "info" },
      "tool:post",
      "linter",
    );
    expect(outcome).toEqual({ action: "continue" });
    expect(displayed).toEqual([{ message: "Lint passed", level: "info", hook: "linter", event: "tool:post" }]);
  });

  it("emits every user message of a folded result", async () => {
    const { coordinator, displayed } = await setup();
    coordinator.hooks.register("tool:post", () => ({ action: "continue", user_message: "one" }), { name: "a" });
    coordinator.hooks.register("tool:post", () => ({ action: "continue", user_message: "two", user_message_level: "error" }), { name: "b" });
    const folded = await coordinator.hooks.emit("tool:post", { tool: "t", callId: "1", input: {}, result: { output: "" } });
    await coordinator.processHookResult(folded, "tool:post", "hooks");
    expect(displayed.map((d) => [d.message, d.level, d.hook])).toEqual([["one", "info", "a"], ["two", "error", "b"]]);
  });

  it("passes deny through with its reason, or one naming the hook", async () => {
    const { coordinator } = await setup();
    expect(await coordinator.processHookResult({ action: "deny", reason: "rm -rf" }, "tool:pre", "guard")).toEqual({ action: "deny", reason: "rm -rf" });
    expect(await coordinator.processHookResult({ action: "deny" }, "tool:pre", "guard")).toEqual({ action: "deny", reason: 'denied by hook "guard"' });
  });

  it("passes modify and continue through unchanged", async () => {
    const { coordinator, context } = await setup();
    expect(await coordinator.processHookResult({ action: "modify", data: { a: 1 } }, "tool:pre", "h")).toEqual({ action: "modify" });
    expect(await coordinator.processHookResult({ action: "continue" }, "tool:pre", "h")).toEqual({ action: "continue" });
    expect(context.stored).toEqual([]);
  });
});

describe("processHookResult: bad input", () => {
  it.each([
    [{ action: "inject" }, "INVALID_HOOK_RESULT"],
    [{ action: "inject_context" }, "INVALID_HOOK_RESULT"],
    [null, "INVALID_HOOK_RESULT"],
  ])("%j is %s", async (result, code) => {
    const { coordinator } = await setup();
    await expect(coordinator.processHookResult(result as never, "tool:pre", "h")).rejects.toMatchObject({ code });
  });

  it("rejects a malformed event name and an empty hook name", async () => {
    const { coordinator } = await setup();
    await expect(coordinator.processHookResult({ action: "continue" }, "toolpre", "h")).rejects.toMatchObject({ code: "INVALID_EVENT_NAME" });
    await expect(coordinator.processHookResult({ action: "continue" }, "tool:pre", "")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
