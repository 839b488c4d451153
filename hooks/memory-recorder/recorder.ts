import type { AmplifierEvents, CoordinatorContract, Memory, MemoryEvent, Unregister } from "@amplifier-ts/contracts";
import { memoryOf } from "@amplifier-ts/contracts";

export interface MemoryRecorderOptions {
  /** The memory session to record into. Default: the mounted context's `sessionId`, else the coordinator's. */
  sessionId?: string;
  /** appName / userId of the memory session when the recorder creates it. Defaults "agent", "user". */
  appName?: string;
  userId?: string;
}

/**
 * Which bus event becomes which memory event. An observer table: the recorder never changes
 * what the session does, and a memory failure is the bus's to report (hook:error), not the turn's.
 *
 * | bus event | memory event | content |
 * |---|---|---|
 * | prompt:submit | user_message | the prompt |
 * | tool:pre | tool_call | { tool, arguments, callId } |
 * | tool:post | tool_result | { tool, result, callId, isError? } |
 * | prompt:complete | agent_response | the final answer |
 * | tool:error, provider:error | error | the error's message |
 * | orchestrator:complete with status "failed" | error | "orchestrator failed" |
 * | delegation:request | delegation_request | { agent, task, childSessionId? } |
 * | delegation:response | delegation_response | { agent, response, childSessionId? } |
 */
type Recording = { [K in keyof AmplifierEvents]?: (payload: AmplifierEvents[K], memory: Memory) => MemoryEvent | undefined };

export const RECORDED_EVENTS: Recording = {
  "prompt:submit": (p, m) => m.createEvent("user_message", p.prompt),
  "tool:pre": (p, m) => m.createEvent("tool_call", { tool: p.tool, arguments: p.input, callId: p.callId }),
  "tool:post": (p, m) => m.createEvent("tool_result", { tool: p.tool, result: jsonable(p.result), callId: p.callId, ...(p.result.isError ? { isError: true } : {}) }),
  "prompt:complete": (p, m) => m.createEvent("agent_response", p.response),
  "tool:error": (p, m) => m.createEvent("error", `${p.tool}: ${p.error.message}`, { tool: p.tool, callId: p.callId }),
  "provider:error": (p, m) => m.createEvent("error", `${p.provider}: ${p.error.message}`, { provider: p.provider }),
  "orchestrator:complete": (p, m) => (p.status === "failed" ? m.createEvent("error", `${p.orchestrator ?? "orchestrator"} failed`) : undefined),
  "delegation:request": (p, m) => m.createEvent("delegation_request", { agent: p.agent, task: p.task, ...(p.childSessionId ? { childSessionId: p.childSessionId } : {}) }),
  "delegation:response": (p, m) => m.createEvent("delegation_response", { agent: p.agent, response: p.response, ...(p.childSessionId ? { childSessionId: p.childSessionId } : {}) }),
};

/**
 * Registers the recorder's handlers; returns their teardown. The memory is looked up when an
 * event comes (the "memory" capability), so the recorder may mount before the memory module; the
 * memory session is created on the first event (getOrCreateSession). Without a memory the events
 * pass unrecorded.
 *
 * The memory session is the one the history is kept under — the mounted context's `sessionId`
 * (context-persistent's `sessionId` config may differ from the coordinator's) — so the Inspector
 * joins a session's messages and its memory. It is looked up per event: hooks mount before the
 * context (MOUNT_ORDER).
 */
export function recordIntoMemory(coordinator: CoordinatorContract, options: MemoryRecorderOptions = {}): Unregister {
  let opened: { memory: Memory; sessionId: string; ready: Promise<string> } | undefined;
  const session = (memory: Memory) => {
    const sessionId = options.sessionId ?? coordinator.get("context")?.sessionId ?? coordinator.sessionId;
    if (opened?.memory !== memory || opened.sessionId !== sessionId) {
      opened = { memory, sessionId, ready: memory.getOrCreateSession({ sessionId, appName: options.appName ?? "agent", userId: options.userId ?? "user" }) };
    }
    return opened.ready;
  };
  const unregisters = (Object.keys(RECORDED_EVENTS) as (keyof AmplifierEvents)[]).map((name) =>
    coordinator.hooks.register(
      name,
      async (payload: unknown) => {
        const memory = memoryOf(coordinator);
        if (memory === undefined) return undefined;
        const event = (RECORDED_EVENTS[name] as (p: unknown, m: Memory) => MemoryEvent | undefined)(payload, memory);
        if (event !== undefined) await memory.addEvent(await session(memory), event);
        return undefined;
      },
      { name: "memory-recorder", priority: 1_000 },
    ),
  );
  return () => {
    for (const unregister of unregisters) unregister();
  };
}

/** A tool result as JSON (ToolResult may carry values JSON cannot hold). */
function jsonable(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null)) as unknown;
  } catch {
    return String(value);
  }
}
