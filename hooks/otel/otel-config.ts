import { z } from "zod";

/** Config of the otel hook module (amplifier.config.json). JSON Schema: schemas/otel.config.schema.json in this package. */
export const otelConfigSchema = z
  .strictObject({
    tracerName: z.string().min(1).optional().describe('Name of the tracer asked of the global OpenTelemetry API (the instrumentation scope). Default "@amplifier-ts/module-otel".'),
    agentName: z.string().min(1).optional().describe("gen_ai.agent.name of the turn spans: `invoke_agent {agentName}`."),
    conversationId: z.string().min(1).optional().describe("gen_ai.conversation.id and session.id on every span. Default: the mounted context's sessionId, else the session's."),
    sessionSpan: z.boolean().optional().describe("A span from session:start to session:end, parent of the turns. Default false: each turn is its own trace, grouped by gen_ai.conversation.id."),
    captureContent: z.boolean().optional().describe("Record prompts, answers, tool arguments and results and included content on the spans (may be sensitive). Default false."),
    maxOpenSpans: z.number().int().positive().max(10_000).optional().describe("How many spans of one kind (calls, tools, turns) may be open at once; past it the oldest is ended and marked amplifier.span.abandoned. Default 64."),
  })
  .meta({ id: "OtelConfig", title: "OtelConfig", description: "Config of the otel hook module: the session's events as OpenTelemetry spans (GenAI semantic conventions)." });

/** The config as written in amplifier.config.json (every field optional). */
export type OtelConfig = z.input<typeof otelConfigSchema>;
