import { z } from "zod";

/**
 * The schemas of the memory contract's values — one source each (contracts/emit-schemas.mjs
 * writes contracts/schemas/memory-event.schema.json from the first). A memory module's config
 * schema is the module's own (memory-local/memory-local-config.ts, …).
 *
 * | schema | describes |
 * |---|---|
 * | memoryEventJsonSchema | an event as JSON: the interchange shape (snake_case keys, ISO-8601 timestamp) |
 * | memorySessionJsonSchema | a session as JSON, with its events |
 * | MEMORY_ID_PATTERN | a session id: 1-128 of [A-Za-z0-9._-], not starting with a dot |
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
  .meta({ id: "MemoryEventJson", title: "MemoryEventJson", description: "A memory event as JSON: the interchange shape, snake_case keys and an ISO-8601 timestamp." });

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
