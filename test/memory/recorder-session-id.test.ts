import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MEMORY_CAPABILITY, type Memory } from "../../contracts/index.js";
import { createSession } from "../../src/session/index.js";
import { runTool, startTurn } from "../../src/turn/index.js";

/**
 * Issue 25, item 11: the recorder files a session's events under the session id its history is
 * kept under — context-persistent's `sessionId` config, not the coordinator's random id — so the
 * Inspector joins a session's messages and its memory.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-recorder-id-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("memory-recorder: the session id", () => {
  it("is the context's sessionId when the context names one (context-persistent), for every recorded event", async () => {
    const session = await createSession(
      {
        session: { context: { module: "context-persistent", config: { storagePath: join(dir, "sessions"), sessionId: "ctx-session" } } },
        memory: { module: "memory-local" },
        hooks: [{ module: "memory-recorder" }],
      },
      { cwd: dir },
    );
    const { coordinator } = session;
    expect(coordinator.sessionId).not.toBe("ctx-session");
    await coordinator.mount("tools", { definition: { type: "function", function: { name: "echo" } }, execute: (input: Record<string, unknown>) => ({ output: String(input.text) }) }, "echo");

    const turn = await startTurn(coordinator, "say hi");
    await runTool(coordinator, { style: "openai", id: "call_1", name: "echo", arguments: '{"text":"hi"}' });
    await turn.complete("hi");

    const memory = coordinator.getCapability<Memory>(MEMORY_CAPABILITY)!;
    expect((await memory.getSessionEvents("ctx-session")).map((e) => e.eventType)).toEqual(["user_message", "tool_call", "tool_result", "agent_response"]);
    expect(await memory.getSessionEvents(coordinator.sessionId)).toEqual([]);
    expect(await memory.listSessions()).toEqual(["ctx-session"]);
    await session.close();
  });

  it("an explicit sessionId option still wins", async () => {
    const session = await createSession(
      {
        session: { context: { module: "context-persistent", config: { storagePath: join(dir, "sessions"), sessionId: "ctx-session" } } },
        memory: { module: "memory-local" },
        hooks: [{ module: "memory-recorder", config: { sessionId: "chosen" } }],
      },
      { cwd: dir },
    );
    await (await startTurn(session.coordinator, "q")).complete("a");
    const memory = session.coordinator.getCapability<Memory>(MEMORY_CAPABILITY)!;
    expect((await memory.getSessionEvents("chosen")).map((e) => e.eventType)).toEqual(["user_message", "agent_response"]);
    await session.close();
  });
});
