import { describe, expect, it } from "vitest";
import { runRecordedLoop } from "../../examples/memory-recorder.js";
import { Coordinator } from "../../core/index.js";
import { LocalMemory, mount as mountLocal } from "../../modules/memory-local/index.js";
import { mount as mountRecorder, startDelegation, finishDelegation } from "../../hooks/memory-recorder/index.js";

describe("memory-recorder", () => {
  it("fills memory from a real orchestrator loop (examples/memory-recorder.ts): prompt, tool call, result, answer, delegation", async () => {
    const run = await runRecordedLoop();
    expect(run.log[0]).toMatch(/^user_message: /);
    expect(run.log[1]).toBe('tool_call: {"tool":"calculator","arguments":{"operation":"multiply","a":37,"b":43},"callId":"call_1"}');
    expect(run.log[2]).toMatch(/^tool_result: \{"tool":"calculator","result":\{"output":"1591"/);
    expect(run.log[3]).toBe("agent_response: That is 37 × 43 = 1591 tiles.");
    expect(run.log.slice(4).map((l) => l.split(":")[0])).toEqual(["delegation_request", "delegation_response"]);
    expect(run.delegationContext).toMatch(/^User: .*\nAssistant: That is 37 × 43 = 1591 tiles\.$/);
    expect(run.childLog.map((l) => l.split(":")[0])).toEqual(["delegation_request", "delegation_response"]);
  });

  it("records errors and delegation events of the bus; without a memory, events pass unrecorded", async () => {
    const coordinator = new Coordinator({ sessionId: "s1" });
    mountRecorder(coordinator, { appName: "app", userId: "ann" });
    await coordinator.hooks.emit("prompt:submit", { prompt: "unrecorded" }); // no memory yet
    const memory = await mountLocal(coordinator, {});
    await coordinator.hooks.emit("tool:error", { tool: "calc", callId: "c1", input: {}, error: new Error("boom") });
    await coordinator.hooks.emit("provider:error", { provider: "p", error: new Error("Connection failed") });
    await coordinator.hooks.emit("delegation:request", { agent: "worker", task: "sum", childSessionId: "child" });
    await coordinator.hooks.emit("delegation:response", { agent: "worker", response: "42" });
    const events = await memory.getSessionEvents("s1");
    expect(events.map((e) => [e.eventType, e.content])).toEqual([
      ["error", "calc: boom"],
      ["error", "p: Connection failed"],
      ["delegation_request", { agent: "worker", task: "sum", childSessionId: "child" }],
      ["delegation_response", { agent: "worker", response: "42" }],
    ]);
    expect(await memory.getSession("s1")).toMatchObject({ appName: "app", userId: "ann" });
    await coordinator.cleanup();
  });

  it("startDelegation gives the child the parent's last contextLimit conversation events and records on both", async () => {
    const memory = new LocalMemory({ contextLimit: 2 });
    const parent = await memory.createSession({ appName: "a", userId: "u", sessionId: "parent" });
    for (const [type, text] of [["user_message", "q1"], ["agent_response", "a1"], ["user_message", "q2"]] as const) await memory.addEvent(parent, memory.createEvent(type, text));
    const { childSessionId, context } = await startDelegation(memory, { parentSessionId: parent, agent: "worker", task: "t", childSessionId: "child" });
    expect(context).toBe("Assistant: a1\nUser: q2");
    await finishDelegation(memory, { parentSessionId: parent, childSessionId, agent: "worker", response: "done" });
    expect((await memory.getSessionEvents("child")).map((e) => e.eventType)).toEqual(["delegation_request", "delegation_response"]);
    expect((await memory.getSessionEvents(parent, { eventTypes: ["delegation_request", "delegation_response"] })).length).toBe(2);
  });
});
