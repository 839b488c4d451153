import type { HistoryScope, HistoryStore, Message, ReadOptions } from "@amplifier-ts/contracts";
import { hasSessionAttachments } from "@amplifier-ts/contracts";
import { agentIdOf } from "./agent-id.js";

/**
 * One agent's view of a HistoryStore: every call goes to `store` with `{ agentId }`, so code
 * that knows no agents (a strategy, a tool, a third party's helper) works on one agent's
 * histories without being told. A scope passed to the view is overridden by the view's agent.
 * The view owns nothing: `close()` closes the underlying store (the view is the store, narrowed).
 * It keeps session attachments when the store does (`hasSessionAttachments`).
 *
 * ```ts
 * const planner = forAgent(store, "planner");
 * await planner.append("s1", message); // = store.append("s1", message, { agentId: "planner" })
 * ```
 */
export function forAgent(store: HistoryStore, agentId: string): HistoryStore {
  const on = { agentId: agentIdOf({ agentId }, "stores") };
  const view: HistoryStore = {
    kind: store.kind,
    open: (sessionId: string, _scope?: HistoryScope) => store.open(sessionId, on),
    append: (sessionId: string, message: Message, _scope?: HistoryScope) => store.append(sessionId, message, on),
    appendMany: (sessionId: string, messages: Message[], _scope?: HistoryScope) => store.appendMany(sessionId, messages, on),
    read: (sessionId: string, options?: ReadOptions) => store.read(sessionId, options === undefined ? on : { ...options, ...on }),
    count: (sessionId: string, _scope?: HistoryScope) => store.count(sessionId, on),
    replace: (sessionId: string, messages: Message[], _scope?: HistoryScope) => store.replace(sessionId, messages, on),
    clear: (sessionId: string, _scope?: HistoryScope) => store.clear(sessionId, on),
    clearRun: (sessionId: string, runId: string, _scope?: HistoryScope) => store.clearRun(sessionId, runId, on),
    listSessions: (_scope?: HistoryScope) => store.listSessions(on),
    deleteSession: (sessionId: string, _scope?: HistoryScope) => store.deleteSession(sessionId, on),
    closeSession: (sessionId: string, _scope?: HistoryScope) => store.closeSession(sessionId, on),
    close: () => store.close(),
  };
  if (!hasSessionAttachments(store)) return view;
  return {
    ...view,
    readAttachment: (sessionId: string, name: string, _scope?: HistoryScope) => store.readAttachment(sessionId, name, on),
    writeAttachment: (sessionId: string, name: string, text: string, _scope?: HistoryScope) => store.writeAttachment(sessionId, name, text, on),
  } as HistoryStore;
}
