import { describe, expect, it, vi } from "vitest";
import { APPROVAL_CAPABILITY, type ApprovalCapability, type ApprovalRequest } from "../../../contracts/coordinator.js";
import { Coordinator } from "../../coordinator.js";

const ask = {
  action: "ask_user" as const,
  approval_prompt: "Allow `rm -rf build`?",
  approval_options: ["allow", "deny", "allow always"],
};

function withApproval(answer: ApprovalCapability["requestApproval"]) {
  const coordinator = new Coordinator();
  const requestApproval = vi.fn(answer);
  coordinator.registerCapability(APPROVAL_CAPABILITY, { requestApproval });
  const events: string[] = [];
  coordinator.hooks.on("*", (event) => {
    if (event.startsWith("approval:")) events.push(event);
  });
  return { coordinator, requestApproval, events };
}

describe("processHookResult: ask_user", () => {
  it("without an approval capability is denied with a reason — never a silent allow", async () => {
    const coordinator = new Coordinator();
    const denied = vi.fn();
    coordinator.hooks.on("approval:denied", denied);
    const outcome = await coordinator.processHookResult(ask, "tool:pre", "shell-guard");
    expect(outcome.action).toBe("deny");
    expect(outcome.approved).toBe(false);
    expect(outcome.reason).toMatch(/no "approval" capability/);
    expect(denied).toHaveBeenCalledWith(expect.objectContaining({ hook: "shell-guard", event: "tool:pre" }));
  });

  it("with a capability lacking requestApproval is denied", async () => {
    const coordinator = new Coordinator();
    coordinator.registerCapability(APPROVAL_CAPABILITY, { approve: () => "allow" });
    const outcome = await coordinator.processHookResult(ask, "tool:pre", "h");
    expect(outcome).toMatchObject({ action: "deny", approved: false });
    expect(outcome.reason).toContain("requestApproval");
  });

  it("asks the capability with {prompt, options, timeout, default, hook, event}", async () => {
    const { coordinator, requestApproval } = withApproval(async () => "allow");
    await coordinator.processHookResult({ ...ask, approval_timeout: 30, approval_default: "deny" }, "tool:pre", "shell-guard");
    expect(requestApproval).toHaveBeenCalledWith({
      prompt: "Allow `rm -rf build`?",
      options: ["allow", "deny", "allow always"],
      timeout: 30,
      default: "deny",
      hook: "shell-guard",
      event: "tool:pre",
    } satisfies ApprovalRequest);
  });

  it("an allow answer continues, approved, and emits approval:required then approval:granted", async () => {
    const { coordinator, events } = withApproval(async () => "allow");
    expect(await coordinator.processHookResult(ask, "tool:pre", "h")).toEqual({ action: "continue", approved: true, decision: "allow" });
    expect(events).toEqual(["approval:required", "approval:granted"]);
  });

  it("an offered option that is not a deny counts as approval", async () => {
    const { coordinator } = withApproval(async () => "allow always");
    expect(await coordinator.processHookResult(ask, "tool:pre", "h")).toMatchObject({ action: "continue", approved: true, decision: "allow always" });
  });

  it("a deny answer denies, and emits approval:denied", async () => {
    const { coordinator, events } = withApproval(async () => "deny");
    expect(await coordinator.processHookResult(ask, "tool:pre", "h")).toMatchObject({ action: "deny", approved: false, decision: "deny" });
    expect(events).toEqual(["approval:required", "approval:denied"]);
  });

  it("an option starting with 'deny' denies", async () => {
    const { coordinator } = withApproval(async () => "Deny always");
    const outcome = await coordinator.processHookResult({ ...ask, approval_options: ["Allow once", "Deny always"] }, "tool:pre", "h");
    expect(outcome).toMatchObject({ action: "deny", approved: false, decision: "Deny always" });
  });

  it("an answer that was not offered denies", async () => {
    const { coordinator } = withApproval(async () => "sure, whatever");
    const outcome = await coordinator.processHookResult(ask, "tool:pre", "h");
    expect(outcome).toMatchObject({ action: "deny", approved: false });
    expect(outcome.reason).toContain("sure, whatever");
  });

  it("a capability that throws denies with the error in the reason", async () => {
    const { coordinator } = withApproval(async () => {
      throw new Error("terminal closed");
    });
    const outcome = await coordinator.processHookResult(ask, "tool:pre", "h");
    expect(outcome).toMatchObject({ action: "deny", approved: false, reason: "approval failed: terminal closed" });
  });

  it("no answer within approval_timeout falls back to approval_default (deny unless allow is given)", async () => {
    const never = () => new Promise<string>(() => {});
    const a = withApproval(never);
    expect(await a.coordinator.processHookResult({ ...ask, approval_timeout: 0.02 }, "tool:pre", "h")).toMatchObject({ action: "deny", approved: false });
    const b = withApproval(never);
    expect(await b.coordinator.processHookResult({ ...ask, approval_timeout: 0.02, approval_default: "allow" }, "tool:pre", "h")).toMatchObject({
      action: "continue",
      approved: true,
      decision: "allow",
    });
  });

  it("a folded ask_user is asked on behalf of the hook that decided it", async () => {
    const { coordinator, requestApproval } = withApproval(async () => "allow");
    coordinator.hooks.register("tool:pre", () => ({ action: "ask_user", approval_prompt: "ok?" }), { name: "asker" });
    const folded = await coordinator.hooks.emit("tool:pre", { tool: "bash", callId: "1", input: {} });
    await coordinator.processHookResult(folded, "tool:pre", "hooks");
    expect(requestApproval.mock.calls[0]![0]).toMatchObject({ hook: "asker", prompt: "ok?", options: ["allow", "deny"], default: "deny" });
  });
});
