import { AsyncLocalStorage } from "node:async_hooks";
import type { AgentContext } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/**
 * The agents/context seed's ContextVars (current_thread_id, current_agent_id,
 * current_agent_label, current_parent_agent_id) as one AsyncLocalStorage. The orchestrator's run
 * sets it around everything it does for one agent —
 *
 * ```ts
 * await runWithAgentContext({ conversationId, agentId, label: "planner" }, () => runTheLoop());
 * ```
 *
 * — and any code the run calls, however deep and across any number of awaits, timers and
 * promise chains it starts, reads it with `currentAgentContext()`: a tool writes to the current
 * agent's task board and blob folder without being passed either.
 *
 * The seed's warning holds in Node too: **set it inside the run, not in serving code.** The
 * context follows the asynchronous call chain that was *started* inside `runWithAgentContext`;
 * a worker loop or queue consumer started elsewhere (at server start) keeps its own context, so
 * a value a request handler stamps before handing the job over never reaches the run, and one
 * stamped with `enterWith` leaks into whatever else that handler's chain does afterwards.
 * test/stores/agent-context.test.ts shows both.
 */
const STORAGE = new AsyncLocalStorage<Readonly<AgentContext>>();

/** Runs `fn` with `context` as the current agent context (nested runs see theirs; the outer one is back afterwards). */
export function runWithAgentContext<T>(context: AgentContext, fn: () => T): T {
  return STORAGE.run(checkAgentContext(context), fn);
}

/** The context of the run this code belongs to, or undefined outside any run. */
export function currentAgentContext(): Readonly<AgentContext> | undefined {
  return STORAGE.getStore();
}

/** The current context; INVALID_ARGUMENT (saying to call runWithAgentContext in the run) outside one. */
export function requireAgentContext(): Readonly<AgentContext> {
  const context = STORAGE.getStore();
  if (context !== undefined) return context;
  throw createError("INVALID_ARGUMENT", "no agent context: this code runs outside runWithAgentContext()", {
    path: "agentContext",
    expected: "a call inside runWithAgentContext({ conversationId, agentId }, fn), made by the orchestrator's run (not by serving code)",
    given: undefined,
  });
}

/**
 * The context for a sub-agent the current agent delegates to: same conversation, its own agent
 * id and label, `parentAgentId` the current agent's.
 */
export function childAgentContext(agentId: string, label?: string): AgentContext {
  const parent = requireAgentContext();
  return { conversationId: parent.conversationId, agentId, ...(label === undefined ? {} : { label }), parentAgentId: parent.agentId };
}

function checkAgentContext(context: unknown): Readonly<AgentContext> {
  if (typeof context !== "object" || context === null) {
    throw createError("INVALID_ARGUMENT", "an agent context is an object", { path: "context", expected: "{ conversationId, agentId, label?, parentAgentId? }", given: context });
  }
  const { conversationId, agentId, label, parentAgentId } = context as Record<string, unknown>;
  const text = (path: string, value: unknown, optional: boolean): void => {
    if (optional && value === undefined) return;
    if (typeof value !== "string" || value.length === 0 || value.length > 256) {
      throw createError("INVALID_ARGUMENT", `agent context: ${path} must be a string of 1-256 characters`, { path: `context.${path}`, expected: "a string of 1-256 characters", given: value });
    }
  };
  text("conversationId", conversationId, false);
  text("agentId", agentId, false);
  text("label", label, true);
  text("parentAgentId", parentAgentId, true);
  return Object.freeze({
    conversationId: conversationId as string,
    agentId: agentId as string,
    ...(label === undefined ? {} : { label: label as string }),
    ...(parentAgentId === undefined ? {} : { parentAgentId: parentAgentId as string }),
  });
}
