import { z } from "zod";
import { DEFAULT_MAX_EVENTS_PER_SESSION, DEFAULT_MAX_SESSIONS, DEFAULT_MEMORY_CONTEXT_LIMIT } from "./memory.js";

/**
 * The schemas of the memory contract — one source each (contracts/emit-schemas.mjs writes the
 * JSON Schema files contracts/schemas/memory-event.schema.json and
 * modules/memory-{local,postgres,redis}.config.schema.json from them):
 *
 * | schema | describes |
 * |---|---|
 * | memoryEventJsonSchema | an event as JSON: the seed's to_dict shape (snake_case keys, ISO-8601 timestamp) |
 * | memorySessionJsonSchema | a session as JSON, with its events |
 * | memoryLocalConfigSchema | config of memory-local and memory-null (contextLimit, maxSessions, maxEventsPerSession) |
 * | memoryPostgresConfigSchema, memoryRedisConfigSchema | the same limits plus where the server is |
 */
const isoTimestamp = z.iso.datetime({ offset: true, local: true }).meta({ description: "ISO-8601 date and time; UTC (Z) when written by amplifier-ts" });

export const MEMORY_ID_PATTERN = /^(?!\.)[A-Za-z0-9._-]{1,128}$/;
const jsonValue = z.json().meta({ id: "JsonValue", title: "JsonValue", description: "Any JSON value" });
const memoryId = z.string().regex(MEMORY_ID_PATTERN).meta({ description: "1-128 characters of [A-Za-z0-9._-], not starting with a dot" });

export const memoryEventJsonSchema = z
  .strictObject({
    event_id: z.string().min(1).max(256),
    timestamp: isoTimestamp,
    event_type: z.string().min(1).max(128).meta({ description: "user_message, agent_response, tool_call, tool_result, delegation_request, delegation_response, error, or another name" }),
    content: jsonValue,
    metadata: z.record(z.string(), jsonValue).optional().meta({ description: "Additional context (JSON object); {} when absent" }),
  })
  .meta({ id: "MemoryEventJson", title: "MemoryEventJson", description: "A memory event as JSON (the KAOS seed's MemoryEvent.to_dict())." });

export const memorySessionJsonSchema = z
  .strictObject({
    session_id: memoryId,
    app_name: z.string().max(256),
    user_id: z.string().max(256),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    events: z.array(memoryEventJsonSchema),
  })
  .meta({ title: "MemorySessionJson", description: "A memory session as JSON, its events oldest first." });

const positive = (description: string, max = 1_000_000_000) => z.number().int().min(1).max(max).meta({ description });

const limits = {
  contextLimit: positive(`Events of delegation context a child session inherits (buildConversationContext). Default ${DEFAULT_MEMORY_CONTEXT_LIMIT}; env MEMORY_CONTEXT_LIMIT.`, 100_000).optional(),
  maxSessions: positive(`Sessions kept; creating one more removes the oldest 10 %. Default ${DEFAULT_MAX_SESSIONS}; env MEMORY_MAX_SESSIONS.`).optional(),
  maxEventsPerSession: positive(`Events kept per session; the oldest go first (a ring buffer). Default ${DEFAULT_MAX_EVENTS_PER_SESSION}; env MEMORY_MAX_SESSION_EVENTS.`).optional(),
};

export const memoryLocalConfigSchema = z
  .strictObject(limits)
  .meta({ id: "MemoryLocalConfig", title: "MemoryLocalConfig", description: "Config of memory-local (and memory-null, which accepts and ignores the limits)." });

export const memoryPostgresConfigSchema = z
  .strictObject({
    ...limits,
    url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/).optional().meta({ description: "The schema holding the memory tables. Default public." }),
    poolSize: positive("Connections of this process's pool. Default 10.", 1000).optional(),
  })
  .meta({ id: "MemoryPostgresConfig", title: "MemoryPostgresConfig", description: "Config of memory-postgres: one memory shared by every process on the same url and schema." });

export const memoryRedisConfigSchema = z
  .strictObject({
    ...limits,
    url: z.string().regex(/^rediss?(\+cluster)?:\/\//).optional().meta({ description: "redis://host:port[/db], or redis+cluster://host:port,host:port for a Redis Cluster (every key of the memory in one slot). Default AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379." }),
    keyPrefix: z.string().min(1).max(128).optional().meta({ description: "Prefix of every key. Default amplifier:memory:." }),
    connectTimeoutMs: positive("How long connecting may take, in ms. Default 2000.", 600_000).optional(),
  })
  .meta({ id: "MemoryRedisConfig", title: "MemoryRedisConfig", description: "Config of memory-redis: one memory shared by every process on the same url and key prefix." });

export type MemoryLocalOptions = z.infer<typeof memoryLocalConfigSchema>;
export type MemoryPostgresOptions = z.infer<typeof memoryPostgresConfigSchema>;
export type MemoryRedisOptions = z.infer<typeof memoryRedisConfigSchema>;
