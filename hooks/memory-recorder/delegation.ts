import type { Memory } from "@amplifier-ts/contracts";

export interface StartDelegationOptions {
  parentSessionId: string;
  agent: string;
  task: string;
  /** Default: a new session id. */
  childSessionId?: string;
  appName?: string;
  userId?: string;
  /** Conversation events the child inherits. Default memory.contextLimit (MEMORY_CONTEXT_LIMIT, 6). */
  contextLimit?: number;
}

/**
 * The documented way to start a sub-agent with memory: creates the child session, records
 * delegation_request on the parent and on the child, and returns the parent's last
 * `contextLimit` conversation events as text (buildConversationContext) for the child's prompt.
 * Finish with finishDelegation, which records delegation_response on both.
 */
export async function startDelegation(memory: Memory, options: StartDelegationOptions): Promise<{ childSessionId: string; context: string }> {
  const parent = await memory.getSession(options.parentSessionId);
  const childSessionId = await memory.createSession({
    appName: options.appName ?? parent?.appName ?? "agent",
    userId: options.userId ?? parent?.userId ?? "user",
    ...(options.childSessionId === undefined ? {} : { sessionId: options.childSessionId }),
  });
  const context = await memory.buildConversationContext(options.parentSessionId, { maxEvents: options.contextLimit ?? memory.contextLimit });
  const content = { agent: options.agent, task: options.task, childSessionId, parentSessionId: options.parentSessionId };
  await memory.addEvent(options.parentSessionId, memory.createEvent("delegation_request", content));
  await memory.addEvent(childSessionId, memory.createEvent("delegation_request", content, { inheritedContext: context }));
  return { childSessionId, context };
}

export async function finishDelegation(memory: Memory, options: { parentSessionId: string; childSessionId: string; agent: string; response: string }): Promise<void> {
  const content = { agent: options.agent, response: options.response, childSessionId: options.childSessionId, parentSessionId: options.parentSessionId };
  await memory.addEvent(options.childSessionId, memory.createEvent("delegation_response", content));
  await memory.addEvent(options.parentSessionId, memory.createEvent("delegation_response", content));
}
