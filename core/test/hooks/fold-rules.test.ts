import { describe, expect, it } from "vitest";
import { HookBus } from "../../hooks/index.js";

/**
 * The fold table of contracts/HOOKS.md, one test per row, in the table's order.
 * `tool:pre` is used throughout: its payload is { tool, callId, input }.
 */
const call = { tool: "read_file", callId: "c1", input: { path: "a.txt" } };

describe("fold rules (contracts/HOOKS.md)", () => {
  it("row 1: handlers run by ascending priority, then registration order", async () => {
    const bus = new HookBus();
    const order: string[] = [];
    bus.register("tool:pre", () => void order.push("p10"), { priority: 10 });
    bus.register("tool:pre", () => void order.push("p0-first"));
    bus.register("tool:pre", () => void order.push("p-5"), { priority: -5 });
    bus.register("tool:pre", () => void order.push("p0-second"), { priority: 0 });
    await bus.emit("tool:pre", call);
    expect(order).toEqual(["p-5", "p0-first", "p0-second", "p10"]);
  });

  it("row 2: the handler list is copied before dispatch (registering during dispatch affects the next emit)", async () => {
    const bus = new HookBus();
    const order: string[] = [];
    bus.register("tool:pre", () => {
      order.push("first");
      bus.register("tool:pre", () => void order.push("late"), { priority: 100 });
    });
    await bus.emit("tool:pre", call);
    expect(order).toEqual(["first"]);
    order.length = 0;
    await bus.emit("tool:pre", call);
    expect(order).toEqual(["first", "late"]);
  });

  it("row 3: undefined means continue; no handler at all folds to continue with the emitted data", async () => {
    const bus = new HookBus();
    expect(await bus.emit("tool:pre", call)).toEqual({ action: "continue", data: call, injections: [], userMessages: [] });
    bus.register("tool:pre", () => undefined);
    bus.register("tool:pre", async () => ({ action: "continue" }));
    const result = await bus.emit("tool:pre", call);
    expect(result.action).toBe("continue");
    expect(result.data).toBe(call);
    expect(result.decidedBy).toBeUndefined();
  });

  it("row 4: deny stops dispatch; the result carries its reason and the hook that denied", async () => {
    const bus = new HookBus();
    const ran: string[] = [];
    bus.register("tool:pre", () => ({ action: "deny", reason: "path outside workspace" }), { name: "guard" });
    bus.register("tool:pre", () => void ran.push("after"), { priority: 1 });
    const result = await bus.emit("tool:pre", call);
    expect(ran).toEqual([]);
    expect(result).toMatchObject({ action: "deny", reason: "path outside workspace", decidedBy: "guard" });
  });

  it("row 4b: a deny without a reason gets one naming the hook", async () => {
    const bus = new HookBus();
    bus.register("tool:pre", () => ({ action: "deny" }), { name: "guard" });
    expect((await bus.emit("tool:pre", call)).reason).toBe('denied by hook "guard"');
  });

  it("row 5: modify passes its data to the next handler and the result carries the final data", async () => {
    const bus = new HookBus();
    const seen: string[] = [];
    bus.register("tool:pre", (d) => ({ action: "modify", data: { ...d, input: { path: "b.txt" } } }));
    bus.register("tool:pre", (d) => {
      seen.push(String(d.input.path));
      return { action: "modify", data: { ...d, tool: "read_file_safe" } };
    });
    bus.register("tool:pre", (d) => void seen.push(`${d.tool}:${String(d.input.path)}`));
    const result = await bus.emit("tool:pre", call);
    expect(seen).toEqual(["b.txt", "read_file_safe:b.txt"]);
    expect(result.action).toBe("modify");
    expect(result.data).toEqual({ tool: "read_file_safe", callId: "c1", input: { path: "b.txt" } });
    expect(call.input.path).toBe("a.txt"); // the emitted object itself is untouched
  });

  it("row 6: inject_context results are collected in order, each with its hook, role and ephemerality", async () => {
    const bus = new HookBus();
    bus.register("prompt:submit", () => ({ action: "inject_context", context_injection: "A" }), { name: "a" });
    bus.register("prompt:submit", () => ({ action: "continue" }));
    bus.register(
      "prompt:submit",
      () => ({ action: "inject_context", context_injection: "B", context_injection_role: "user", ephemeral: true }),
      { name: "b" },
    );
    const result = await bus.emit("prompt:submit", { prompt: "hi" });
    expect(result.action).toBe("inject_context");
    expect(result.injections).toEqual([
      { content: "A", role: "system", ephemeral: false, hook: "a" },
      { content: "B", role: "user", ephemeral: true, hook: "b" },
    ]);
    // Summary fields: joined text, first role, ephemeral only if all are.
    expect(result).toMatchObject({ context_injection: "A\n\nB", context_injection_role: "system", ephemeral: false });
  });

  it("row 7: ask_user does not stop dispatch; the first ask_user's prompt and options are kept", async () => {
    const bus = new HookBus();
    const ran: string[] = [];
    bus.register("tool:pre", () => ({ action: "ask_user", approval_prompt: "Run it?", approval_options: ["allow", "deny"], approval_timeout: 5 }), { name: "ask1" });
    bus.register("tool:pre", () => {
      ran.push("second");
      return { action: "ask_user", approval_prompt: "Really?" };
    });
    const result = await bus.emit("tool:pre", call);
    expect(ran).toEqual(["second"]);
    expect(result).toMatchObject({ action: "ask_user", approval_prompt: "Run it?", approval_options: ["allow", "deny"], approval_timeout: 5, decidedBy: "ask1" });
  });

  it("row 8: user_message is collected from any action, in order", async () => {
    const bus = new HookBus();
    bus.register("tool:pre", () => ({ action: "continue", user_message: "checking", user_message_level: "info" }), { name: "a" });
    bus.register("tool:pre", () => ({ action: "deny", reason: "no", user_message: "blocked", user_message_level: "warning" }), { name: "b" });
    const result = await bus.emit("tool:pre", call);
    expect(result.userMessages).toEqual([
      { message: "checking", level: "info", hook: "a" },
      { message: "blocked", level: "warning", hook: "b" },
    ]);
    expect(result).toMatchObject({ user_message: "checking", user_message_level: "info" });
  });

  describe("row 9: precedence of the final action: deny > ask_user > inject_context > modify > continue", () => {
    const answers = {
      continue: { action: "continue" },
      modify: { action: "modify", data: call },
      inject_context: { action: "inject_context", context_injection: "x" },
      ask_user: { action: "ask_user", approval_prompt: "?" },
      deny: { action: "deny", reason: "no" },
    } as const;
    const ranked = ["continue", "modify", "inject_context", "ask_user", "deny"] as const;

    for (const [i, weaker] of ranked.entries()) {
      for (const stronger of ranked.slice(i + 1)) {
        it(`${stronger} beats ${weaker}, whichever runs first`, async () => {
          for (const order of [[weaker, stronger], [stronger, weaker]] as const) {
            const bus = new HookBus();
            for (const action of order) bus.register("tool:pre", () => answers[action], { name: action });
            const result = await bus.emit("tool:pre", call);
            // deny first stops dispatch, so the weaker one never runs; deny still wins.
            expect(result.action).toBe(stronger);
            expect(result.decidedBy).toBe(stronger);
          }
        });
      }
    }
  });

  it("row 10: suppress_output is set when any handler asks for it", async () => {
    const bus = new HookBus();
    bus.register("tool:post", () => ({ action: "continue", suppress_output: true }));
    bus.register("tool:post", () => ({ action: "continue" }));
    const result = await bus.emit("tool:post", { ...call, result: { output: "ok" } });
    expect(result.suppress_output).toBe(true);
  });

  it("payload-less events are emitted without data and fold with data undefined", async () => {
    const bus = new HookBus();
    let received: unknown = "unset";
    bus.register("cancel:completed", (d) => void (received = d));
    const result = await bus.emit("cancel:completed");
    expect(received).toBeUndefined();
    expect(result).toEqual({ action: "continue", data: undefined, injections: [], userMessages: [] });
  });
});
