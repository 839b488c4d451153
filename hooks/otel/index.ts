// @amplifier-ts/module-otel: the session's events as OpenTelemetry spans (GenAI semantic conventions).
import type { CoordinatorContract, ModuleMeta, Unregister } from "@amplifier-ts/contracts";
import { instrumentSession } from "./instrument-session.js";
import { otelConfigSchema, type OtelConfig } from "./otel-config.js";
import { requireOtelApi } from "./otel-api.js";
import { OTEL_MODULE_VERSION } from "./tracer-check.js";

export { AMPLIFIER, ERROR_TYPE, GEN_AI, GEN_AI_OPERATION, PROVIDER_NAMES, SESSION_ID, SPAN } from "./attributes.js";
export { CONTEXT_EVENTS, type ContextEventName } from "./context-events.js";
export { otelErrors } from "./errors.js";
export { recordFitSpan, type FitSpanOptions, type FitSpanReport } from "./fit-span.js";
export { instrumentSession } from "./instrument-session.js";
export { otelConfigSchema, type OtelConfig } from "./otel-config.js";
export { errorType, otelHooks, type OtelHooksOptions } from "./otel-hooks.js";
export { TRACER_NAME } from "./tracer-check.js";

export const meta: ModuleMeta = {
  name: "otel",
  version: OTEL_MODULE_VERSION,
  kind: "hook",
  description: "Exports provider calls, turns, tool calls and the context window's decisions as OpenTelemetry spans (GenAI semantic conventions).",
  configSchema: otelConfigSchema,
};

/**
 * Registers the tracer's observers on coordinator.hooks, writing to the global OpenTelemetry
 * tracer (`trace.getTracer(tracerName)`: register an SDK's provider first). Without
 * @opentelemetry/api installed: OTEL/API_MISSING here, at mount. The returned teardown runs at cleanup.
 */
export function mount(coordinator: CoordinatorContract, config: OtelConfig = {}): Unregister {
  requireOtelApi("mount()");
  const { conversationId, ...options } = otelConfigSchema.parse(config ?? {});
  return instrumentSession({ coordinator }, { ...options, ...(conversationId === undefined ? {} : { conversationId }) });
}
