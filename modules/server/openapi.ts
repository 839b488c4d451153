/**
 * The OpenAPI 3.1 document of the endpoints, served at GET /openapi.json. Hand-written (two
 * routes do not need a generator); the route schemas in start-server.ts are its `parameters`,
 * so what the document says is what fastify validates.
 */
export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 1000;

/** Each route's one-line summary: in this document and in the index at `/` (route-index.ts). */
export const ROUTE_SUMMARIES = { events: "List events, newest last", sessions: "List session ids, oldest first" } as const;

export const eventsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT, description: `Most events returned, newest last (default ${LIMIT_DEFAULT}, at most ${LIMIT_MAX})` },
    session_id: { type: "string", pattern: "^(?!\\.)[A-Za-z0-9._-]{1,128}$", description: "Only this session's events; an unknown session answers 200 with no events" },
  },
} as const;

const eventSchema = {
  type: "object",
  required: ["event_id", "timestamp", "event_type", "content", "metadata", "session_id"],
  properties: {
    event_id: { type: "string" },
    timestamp: { type: "string", format: "date-time" },
    event_type: { type: "string" },
    content: {},
    metadata: { type: "object" },
    session_id: { type: "string" },
  },
} as const;

const errorSchema = {
  type: "object",
  required: ["statusCode", "error", "message"],
  properties: { statusCode: { type: "integer" }, error: { type: "string" }, code: { type: "string" }, message: { type: "string" }, parameter: { type: "string" } },
} as const;

export function openApiDocument(agent: string, secured: boolean): Record<string, unknown> {
  const errors = {
    "400": { description: "A bad query parameter (named in `parameter`)", content: { "application/json": { schema: errorSchema } } },
    ...(secured ? { "401": { description: "Missing or wrong bearer token", content: { "application/json": { schema: errorSchema } } } } : {}),
    "503": { description: "No memory is mounted in the session", content: { "application/json": { schema: errorSchema } } },
  };
  return {
    openapi: "3.1.0",
    info: { title: `amplifier-ts endpoints of ${agent}`, version: "1.0.0", description: "Agent memory for debugging and UIs (the KAOS memory endpoints)." },
    ...(secured ? { components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } }, security: [{ bearer: [] }] } : {}),
    paths: {
      "/memory/events": {
        get: {
          summary: ROUTE_SUMMARIES.events,
          parameters: Object.entries(eventsQuerySchema.properties).map(([name, schema]) => ({ name, in: "query", required: false, schema, description: schema.description })),
          responses: {
            "200": {
              description: "The events",
              content: { "application/json": { schema: { type: "object", required: ["agent", "events", "total"], properties: { agent: { type: "string" }, events: { type: "array", items: eventSchema }, total: { type: "integer" } } } } },
            },
            ...errors,
          },
        },
      },
      "/memory/sessions": {
        get: {
          summary: ROUTE_SUMMARIES.sessions,
          responses: {
            "200": {
              description: "The sessions",
              content: { "application/json": { schema: { type: "object", required: ["agent", "sessions", "total"], properties: { agent: { type: "string" }, sessions: { type: "array", items: { type: "string" } }, total: { type: "integer" } } } } },
            },
            ...errors,
          },
        },
      },
    },
  };
}
