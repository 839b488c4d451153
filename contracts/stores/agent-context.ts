/**
 * Who is running: the conversation, the agent, its label and the agent that delegated to it, as
 * one value. The kernel keeps
 * it in an AsyncLocalStorage (`runWithAgentContext` / `currentAgentContext` in @amplifier-ts/core),
 * set by the orchestrator's run so tools deep in the call stack read it without being passed it.
 */
export interface AgentContext {
  /** The conversation (a thread id elsewhere). */
  conversationId: string;
  /** Which agent's board, blobs and history. */
  agentId: string;
  /** Human-readable name of the agent. */
  label?: string;
  /** Set for a sub-agent: the agent that delegated to it. */
  parentAgentId?: string;
}
