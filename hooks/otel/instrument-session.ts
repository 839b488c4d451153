import type { CoordinatorContract, Unregister } from "@amplifier-ts/contracts";
import { otelHooks, type OtelHooksOptions } from "./otel-hooks.js";

/**
 * Traces a session built in code: `instrumentSession(await createSession(config), { tracer })`.
 * The same spans as the `otel` hook module; `gen_ai.conversation.id` is the mounted context's
 * `sessionId` (context-persistent's may differ from the coordinator's), else the session's, read
 * at each span. Returns the teardown; call it before closing the session to end what is open.
 */
export function instrumentSession(session: { readonly coordinator: CoordinatorContract }, options: OtelHooksOptions = {}): Unregister {
  const { coordinator } = session;
  return otelHooks(coordinator.hooks, {
    conversationId: () => coordinator.get("context")?.sessionId ?? coordinator.sessionId,
    ...options,
  });
}
