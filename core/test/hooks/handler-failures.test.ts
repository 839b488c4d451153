import { describe, expect, it, vi } from "vitest";
import type { AmplifierEvents } from "../../../contracts/events.js";
import { AmplifierError, isAmplifierError } from "../../../contracts/errors.js";
import { HookBus } from "../../hooks/index.js";

/** Failure policy at the hook boundary: report as hook:error and skip, or deny when fail-closed. */
const call = { tool: "bash", callId: "c1", input: { cmd: "ls" } };

function recordErrors(bus: HookBus): AmplifierEvents["hook:error"][] {
  const reports: AmplifierEvents["hook:error"][] = [];
  bus.register("hook:error", (report) => void reports.push(report));
  return reports;
}

describe("a throwing handler", () => {
  it("is reported as hook:error {event, hook, error} and skipped; dispatch goes on", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    const cause = new Error("disk on fire");
    bus.register("tool:pre", () => { throw cause; }, { name: "crashy" });
    bus.register("tool:pre", () => ({ action: "inject_context", context_injection: "still here" }), { name: "next" });

    const result = await bus.emit("tool:pre", call);

    expect(result.action).toBe("inject_context");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ event: "tool:pre", hook: "crashy", failClosed: false });
    const error = reports[0]!.error as AmplifierError;
    expect(error.code).toBe("HOOK_FAILED");
    expect(error.cause).toBe(cause);
    expect(error.message).toContain("disk on fire");
  });

  it("counts a rejected promise the same as a throw", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("tool:pre", async () => Promise.reject(new Error("nope")), { name: "async-crashy" });
    expect((await bus.emit("tool:pre", call)).action).toBe("continue");
    expect(isAmplifierError(reports[0]?.error, "HOOK_FAILED")).toBe(true);
  });

  it("with failClosed becomes a deny carrying the reason", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    const ran: string[] = [];
    bus.register("tool:pre", () => { throw new Error("policy service down"); }, { name: "policy", failClosed: true });
    bus.register("tool:pre", () => void ran.push("after"), { priority: 1 });

    const result = await bus.emit("tool:pre", call);

    expect(result.action).toBe("deny");
    expect(result.decidedBy).toBe("policy");
    expect(result.reason).toMatch(/hook "policy" failed closed: .*policy service down/);
    expect(ran).toEqual([]);
    expect(reports[0]).toMatchObject({ hook: "policy", failClosed: true });
  });
});

describe("a hanging handler", () => {
  it("is cut off after its timeoutMs, reported as HOOK_TIMEOUT and skipped; its signal is aborted", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    let signal: AbortSignal | undefined;
    bus.register("tool:pre", (_d, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    }, { name: "sleeper", timeoutMs: 20 });
    bus.register("tool:pre", () => ({ action: "modify", data: { ...call, tool: "after" } }));

    const started = Date.now();
    const result = await bus.emit("tool:pre", call);

    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.data.tool).toBe("after");
    expect(reports[0]).toMatchObject({ event: "tool:pre", hook: "sleeper", failClosed: false });
    expect(isAmplifierError(reports[0]!.error, "HOOK_TIMEOUT")).toBe(true);
    expect(signal?.aborted).toBe(true);
  });

  it("uses the bus's default timeout when the handler sets none", async () => {
    const bus = new HookBus({ timeoutMs: 15 });
    const reports = recordErrors(bus);
    bus.register("tool:pre", () => new Promise(() => {}), { name: "sleeper" });
    await bus.emit("tool:pre", call);
    expect(isAmplifierError(reports[0]?.error, "HOOK_TIMEOUT")).toBe(true);
    expect(bus.listHandlers("tool:pre")[0]?.timeoutMs).toBe(15);
  });

  it("with failClosed becomes a deny", async () => {
    const bus = new HookBus();
    bus.register("tool:pre", () => new Promise(() => {}), { name: "approver", timeoutMs: 10, failClosed: true });
    const result = await bus.emit("tool:pre", call);
    expect(result.action).toBe("deny");
    expect(result.reason).toContain("did not settle within 10 ms");
  });

  it("that settles later changes nothing", async () => {
    const bus = new HookBus();
    let settle: (v: unknown) => void = () => {};
    bus.register("tool:pre", () => new Promise<never>((resolve) => (settle = resolve as (v: unknown) => void)), { timeoutMs: 10 });
    const result = await bus.emit("tool:pre", call);
    settle({ action: "deny", reason: "too late" });
    await new Promise((r) => setTimeout(r, 5));
    expect(result.action).toBe("continue");
  });
});

describe("an invalid handler result", () => {
  it.each([
    ["not an object", "deny"],
    ["an unknown action", { action: "block" }],
    ["a misspelled field", { action: "continue", contextInjection: "x" }],
    ["modify without data", { action: "modify" }],
    ["inject_context without text", { action: "inject_context" }],
    ["null", null],
  ])("(%s) is reported as INVALID_HOOK_RESULT and skipped", async (_label, answer) => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("tool:pre", () => answer as never, { name: "sloppy" });
    const result = await bus.emit("tool:pre", call);
    expect(result.action).toBe("continue");
    expect(reports).toHaveLength(1);
    const error = reports[0]!.error as AmplifierError;
    expect(error.code).toBe("INVALID_HOOK_RESULT");
    expect(error.hook).toBe("sloppy");
    expect(error.path).toMatch(/^result/);
  });

  it("names the field and suggests the snake_case spelling", async () => {
    const bus = new HookBus();
    const reports = recordErrors(bus);
    bus.register("tool:pre", () => ({ action: "continue", contextInjection: "x" }) as never);
    await bus.emit("tool:pre", call);
    const error = reports[0]!.error as AmplifierError;
    expect(error.path).toBe("result.contextInjection");
    expect(error.details.hint).toBe('did you mean "context_injection"?');
  });

  it("with failClosed becomes a deny", async () => {
    const bus = new HookBus();
    bus.register("tool:pre", () => ({ action: "maybe" }) as never, { failClosed: true, name: "strict" });
    expect((await bus.emit("tool:pre", call)).action).toBe("deny");
  });
});

describe("failures nobody can be told about", () => {
  it("a failing hook:error handler goes to onUnreportedError, without looping", async () => {
    const unreported = vi.fn();
    const bus = new HookBus({ onUnreportedError: unreported });
    bus.register("hook:error", () => { throw new Error("logger broken"); }, { name: "logger" });
    bus.register("tool:pre", () => { throw new Error("first"); }, { name: "crashy" });
    const result = await bus.emit("tool:pre", call);
    expect(result.action).toBe("continue");
    expect(unreported).toHaveBeenCalledTimes(1);
    expect(unreported.mock.calls[0]![0]).toMatchObject({ code: "HOOK_FAILED", details: { hook: "logger", event: "hook:error" } });
  });
});
