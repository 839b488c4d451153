import { createError } from "../errors.js";
import type { MemoryEventJson } from "../generated/memory-event.js";
import { formatIssues } from "../validators/index.js";
import type { MemoryEvent as MemoryEventShape, MemoryEventType, MemorySession as MemorySessionShape } from "./memory.js";
import { memoryErrors } from "./memory-errors.js";
import { memoryEventJsonSchema, memorySessionJsonSchema } from "./memory-schemas.js";

/** An event's JSON interchange shape, snake_case keys (generated from memoryEventJsonSchema; toJSON always writes metadata). */
export type { MemoryEventJson };

/** A session as JSON, with its events. */
export interface MemorySessionJson {
  session_id: string;
  app_name: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  events: MemoryEventJson[];
}

/**
 * Throws unless `event` is a MemoryEvent whose JSON form is valid: the check addEvent and
 * createEvent run before anything is stored or handed out. `code` INVALID_ARGUMENT for
 * arguments, MEMORY/INVALID_EVENT for values read back.
 */
export function checkMemoryEvent(event: unknown, path: string, code: "INVALID_ARGUMENT" | "MEMORY/INVALID_EVENT" = "INVALID_ARGUMENT"): asserts event is MemoryEventShape {
  const e = event as Partial<MemoryEventShape> | null;
  if (typeof e !== "object" || e === null || !(e.timestamp instanceof Date) || Number.isNaN(e.timestamp.getTime())) {
    throw fail(code, path, "a MemoryEvent { eventId, timestamp: Date, eventType, content, metadata } (from createEvent)", event);
  }
  if (typeof e.metadata !== "object" || e.metadata === null || Array.isArray(e.metadata)) throw fail(code, `${path}.metadata`, "an object of JSON values", e.metadata);
  validJson(eventToJson(e as MemoryEventShape), path, code, camelPath);
}

/** One entry of the log (memory.ts); the value of the same name holds its JSON conversions. */
export type MemoryEvent<T extends MemoryEventType = MemoryEventType> = MemoryEventShape<T>;
/** A session with its events (memory.ts); the value of the same name holds its JSON conversions. */
export type MemorySession = MemorySessionShape;

/** MemoryEvent.toJSON / fromJSON and MemorySession.toJSON / fromJSON: to and from the JSON interchange shape. */
export const MemoryEvent = {
  toJSON(event: MemoryEventShape): MemoryEventJson & { metadata: Record<string, unknown> } {
    return eventToJson(event);
  },
  /** Validates (MEMORY/INVALID_EVENT naming the field) and builds the event; metadata defaults to {}. */
  fromJSON(json: unknown): MemoryEventShape {
    validJson(json, "event", "MEMORY/INVALID_EVENT");
    return eventFromJson(json as MemoryEventJson);
  },
};

export const MemorySession = {
  toJSON(session: MemorySessionShape): MemorySessionJson {
    return {
      session_id: session.sessionId,
      app_name: session.appName,
      user_id: session.userId,
      created_at: session.createdAt.toISOString(),
      updated_at: session.updatedAt.toISOString(),
      events: session.events.map(eventToJson),
    };
  },
  fromJSON(json: unknown): MemorySessionShape {
    const result = memorySessionJsonSchema.safeParse(json);
    if (!result.success) invalid(result.error.issues, json, "session");
    const s = json as MemorySessionJson;
    return {
      sessionId: s.session_id,
      appName: s.app_name,
      userId: s.user_id,
      createdAt: new Date(s.created_at),
      updatedAt: new Date(s.updated_at),
      events: s.events.map(eventFromJson),
    };
  },
};

// ---- private helpers ----

function eventToJson(event: MemoryEventShape): MemoryEventJson & { metadata: Record<string, unknown> } {
  // content and metadata are JSON values: checkMemoryEvent ran when the event was made or added.
  return { event_id: event.eventId, timestamp: event.timestamp.toISOString(), event_type: event.eventType, content: event.content, metadata: event.metadata } as MemoryEventJson & { metadata: Record<string, unknown> };
}

function eventFromJson(json: MemoryEventJson): MemoryEventShape {
  return { eventId: json.event_id, timestamp: new Date(json.timestamp), eventType: json.event_type, content: json.content, metadata: json.metadata ?? {} };
}

const CAMEL: Record<string, string> = { event_id: "eventId", event_type: "eventType" };
function camelPath(path: string): string {
  return path.replace(/\.(event_id|event_type)\b/g, (_, key: string) => `.${CAMEL[key]}`);
}

function validJson(json: unknown, path: string, code: "INVALID_ARGUMENT" | "MEMORY/INVALID_EVENT", rename: (p: string) => string = (p) => p): void {
  const result = memoryEventJsonSchema.safeParse(json);
  if (result.success) return;
  const issues = formatIssues(result.error.issues, json, path, memoryEventJsonSchema);
  const first = issues[0];
  throw fail(code, rename(first?.path ?? path), first?.expected ?? "a memory event", first?.given, issues.length > 1 ? issues : undefined);
}

function invalid(issues: Parameters<typeof formatIssues>[0], json: unknown, path: string): never {
  const formatted = formatIssues(issues, json, path, memorySessionJsonSchema);
  const first = formatted[0];
  throw fail("MEMORY/INVALID_EVENT", first?.path ?? path, first?.expected ?? "a memory session", first?.given, formatted.length > 1 ? formatted : undefined);
}

function fail(code: "INVALID_ARGUMENT" | "MEMORY/INVALID_EVENT", path: string, expected: string, given: unknown, issues?: unknown) {
  const details = { module: "memory", path, expected, given, ...(issues === undefined ? {} : { issues }) };
  return code === "INVALID_ARGUMENT" ? createError("INVALID_ARGUMENT", `${path} is not valid`, details) : memoryErrors.create("INVALID_EVENT", `${path} is not valid`, details);
}
