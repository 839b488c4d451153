/**
 * The KAOS memory seed (../shared/seeds/001_6f2b0360ec686029.txt), example by example, in
 * TypeScript: one test per example, named after the seed's heading. Python's snake_case becomes
 * camelCase (create_session → createSession, max_events → { maxEvents }); the answers are the
 * seed's.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryEvent, MemorySession, type Memory } from "../../contracts/index.js";
import { resolveMemoryRef } from "../../src/session/memory-from-environment.js";
import { createSession } from "../../src/session/index.js";
import { LocalMemory } from "../../modules/memory-local/index.js";
import { NullMemory } from "../../modules/memory-null/index.js";
import { PostgresMemory } from "../../modules/memory-postgres/index.js";
import { RedisMemory } from "../../modules/memory-redis/index.js";
import { startServer, type RunningServer } from "../../modules/server/index.js";
import { PG_URL, REDIS_URL, uniqueName } from "./memory-support.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});
function local(options: ConstructorParameters<typeof LocalMemory>[0] = {}): LocalMemory {
  const memory = new LocalMemory(options);
  open.push(memory);
  return memory;
}

describe("seed: Memory Implementations", () => {
  it("LocalMemory Class: max_sessions 1000 and max_events_per_session 500 by default", () => {
    const memory = local();
    expect([memory.kind, memory.maxSessions, memory.maxEventsPerSession]).toEqual(["local", 1000, 500]);
    const small = local({ maxSessions: 10, maxEventsPerSession: 5 });
    expect([small.maxSessions, small.maxEventsPerSession]).toEqual([10, 5]);
  });

  it("NullMemory Class: all operations succeed silently without storing data", async () => {
    const memory = new NullMemory();
    const sessionId = await memory.createSession({ appName: "agent", userId: "user123" });
    expect(await memory.addEvent(sessionId, memory.createEvent("user_message", "Hello!"))).toBe(true);
    expect(await memory.getSessionEvents(sessionId)).toEqual([]);
    expect(await memory.listSessions()).toEqual([]);
    expect(await memory.getMemoryStats()).toEqual({ totalSessions: 0, totalEvents: 0, avgEventsPerSession: 0 });
  });
});

describe("seed: Configuration", () => {
  it("Via Environment Variables: MEMORY_ENABLED, MEMORY_TYPE, MEMORY_CONTEXT_LIMIT, MEMORY_MAX_SESSIONS, MEMORY_MAX_SESSION_EVENTS", () => {
    const env = { MEMORY_ENABLED: "true", MEMORY_TYPE: "local", MEMORY_CONTEXT_LIMIT: "6", MEMORY_MAX_SESSIONS: "1000", MEMORY_MAX_SESSION_EVENTS: "500" };
    expect(resolveMemoryRef(undefined, env)).toEqual({ module: "memory-local", config: { contextLimit: 6, maxSessions: 1000, maxEventsPerSession: 500 } });
    expect(resolveMemoryRef(undefined, { MEMORY_ENABLED: "false" })?.module).toBe("memory-null");
  });

  it("Via Agent CRD: the spec's memory block is amplifier.config.json's \"memory\" entry", async () => {
    // spec.config.memory { enabled: true, type: local, contextLimit: 6, maxSessions: 1000, maxSessionEvents: 500 }
    const session = await createSession({
      session: { context: { module: "context-simple" } },
      memory: { module: "memory-local", config: { contextLimit: 6, maxSessions: 1000, maxEventsPerSession: 500 } },
    });
    open.push(session);
    const memory = session.coordinator.getCapability<Memory>("memory") as LocalMemory;
    expect([memory.kind, memory.contextLimit, memory.maxSessions, memory.maxEventsPerSession]).toEqual(["local", 6, 1000, 500]);
  });
});

describe("seed: Session Management", () => {
  it("Create Session: with app_name, user_id and an optional custom session_id", async () => {
    const memory = local();
    expect(await memory.createSession({ appName: "agent", userId: "user123", sessionId: "custom-id" })).toBe("custom-id");
    expect(await memory.createSession({ appName: "agent", userId: "user123" })).toMatch(/^session_/);
  });

  it("Get or Create Session: useful when the session id is provided by the client", async () => {
    const memory = local();
    const sessionId = await memory.getOrCreateSession({ sessionId: "provided-id", appName: "agent", userId: "user" });
    expect(sessionId).toBe("provided-id");
    expect(await memory.getOrCreateSession({ sessionId: "provided-id", appName: "agent", userId: "user" })).toBe("provided-id");
    expect(await memory.listSessions()).toEqual(["provided-id"]);
  });

  it("List Sessions: all, or those of one user", async () => {
    const memory = local();
    await memory.createSession({ appName: "agent", userId: "user123", sessionId: "a" });
    await memory.createSession({ appName: "agent", userId: "someone", sessionId: "b" });
    const allSessions = await memory.listSessions();
    const userSessions = await memory.listSessions({ userId: "user123" });
    expect([allSessions, userSessions]).toEqual([["a", "b"], ["a"]]);
  });

  it("Delete Session: true when deleted", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "user123" });
    const deleted = await memory.deleteSession(sessionId);
    expect(deleted).toBe(true);
    expect(await memory.deleteSession(sessionId)).toBe(false);
  });
});

describe("seed: Event Management", () => {
  it("MemoryEvent Structure: event_id, timestamp, event_type, content, metadata", () => {
    const event = local().createEvent("user_message", "Hello!");
    expect(Object.keys(event).sort()).toEqual(["content", "eventId", "eventType", "metadata", "timestamp"]);
    expect(event.timestamp).toBeInstanceOf(Date);
    expect(event.metadata).toEqual({});
  });

  it("Event Types: the seven types with the seed's content examples", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "u" });
    const examples = [
      memory.createEvent("user_message", "What is 2+2?"),
      memory.createEvent("agent_response", "The answer is 4"),
      memory.createEvent("tool_call", { tool: "calc", arguments: { expression: "2+2" } }),
      memory.createEvent("tool_result", { tool: "calc", result: 4 }),
      memory.createEvent("delegation_request", { agent: "worker", task: "add the numbers" }),
      memory.createEvent("delegation_response", { agent: "worker", response: "4" }),
      memory.createEvent("error", "Connection failed"),
    ];
    for (const event of examples) expect(await memory.addEvent(sessionId, event)).toBe(true);
    expect((await memory.getSessionEvents(sessionId)).map((e) => e.eventType)).toEqual(["user_message", "agent_response", "tool_call", "tool_result", "delegation_request", "delegation_response", "error"]);
  });

  it("Create Event: event_type, content and metadata", () => {
    const event = local().createEvent("user_message", "Hello!", { source: "api" });
    expect(event).toMatchObject({ eventType: "user_message", content: "Hello!", metadata: { source: "api" } });
    expect(event.eventId).toMatch(/^event_/);
  });

  it("Add Event to Session: success is true", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "u" });
    const event = memory.createEvent("user_message", "Hello!", { source: "api" });
    const success = await memory.addEvent(sessionId, event);
    expect(success).toBe(true);
    expect(await memory.getSessionEvents(sessionId)).toEqual([event]);
  });

  it("Get Session Events: all events, or filtered by type", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "u" });
    for (const [type, content] of [["user_message", "Hello!"], ["tool_call", { tool: "calc", arguments: {} }], ["agent_response", "Hi there!"]] as const) {
      await memory.addEvent(sessionId, memory.createEvent(type, content as never));
    }
    const allEvents = await memory.getSessionEvents(sessionId);
    const messages = await memory.getSessionEvents(sessionId, { eventTypes: ["user_message", "agent_response"] });
    expect(allEvents).toHaveLength(3);
    expect(messages.map((e) => e.content)).toEqual(["Hello!", "Hi there!"]);
  });
});

describe("seed: Conversation Context", () => {
  it("Conversation Context: the last messages as \"User: …\\nAssistant: …\"", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "u" });
    await memory.addEvent(sessionId, memory.createEvent("user_message", "Hello!"));
    await memory.addEvent(sessionId, memory.createEvent("agent_response", "Hi there!"));
    await memory.addEvent(sessionId, memory.createEvent("user_message", "How are you?"));
    const context = await memory.buildConversationContext(sessionId, { maxEvents: 20 });
    expect(context).toBe("User: Hello!\nAssistant: Hi there!\nUser: How are you?");
  });
});

describe("seed: Cleanup", () => {
  it("Manual Cleanup: remove sessions older than 24 hours, and count them", async () => {
    const memory = local();
    await memory.createSession({ appName: "agent", userId: "u" });
    const cleaned = await memory.cleanupOldSessions({ maxAgeHours: 24 });
    expect(cleaned).toBe(0); // the session is new
    expect(await memory.cleanupOldSessions({ maxAgeHours: 0 })).toBe(1);
  });

  it("Automatic Cleanup: events past max_events_per_session are evicted; past max_sessions the oldest 10 % go", async () => {
    const memory = local({ maxSessions: 10, maxEventsPerSession: 3 });
    const sessionId = await memory.createSession({ appName: "agent", userId: "u", sessionId: "s0" });
    for (let i = 0; i < 5; i++) await memory.addEvent(sessionId, memory.createEvent("user_message", `m${i}`));
    expect((await memory.getSessionEvents(sessionId)).map((e) => e.content)).toEqual(["m2", "m3", "m4"]);
    for (let i = 1; i <= 10; i++) await memory.createSession({ appName: "agent", userId: "u", sessionId: `s${i}` });
    const ids = await memory.listSessions();
    expect(ids).toHaveLength(10);
    expect(ids[0]).toBe("s1"); // s0, the oldest 10 % of 10, went to make room for s10
  });
});

describe("seed: Statistics", () => {
  it("Statistics: total_sessions, total_events, avg_events_per_session (1337 events in 42 sessions → 31)", async () => {
    const memory = local();
    const ids: string[] = [];
    for (let s = 0; s < 42; s++) ids.push(await memory.createSession({ appName: "agent", userId: "u" }));
    for (let e = 0; e < 1337; e++) await memory.addEvent(ids[e % 42]!, memory.createEvent("user_message", `${e}`));
    expect(await memory.getMemoryStats()).toEqual({ totalSessions: 42, totalEvents: 1337, avgEventsPerSession: 31 });
  });
});

describe("seed: Serialization", () => {
  it("Event to Dictionary: event_id, timestamp, event_type, content, metadata", () => {
    const event = { ...local().createEvent("user_message", "Hello!"), eventId: "event_abc123", timestamp: new Date("2024-12-31T12:00:00Z") };
    expect(MemoryEvent.toJSON(event)).toEqual({ event_id: "event_abc123", timestamp: "2024-12-31T12:00:00.000Z", event_type: "user_message", content: "Hello!", metadata: {} });
  });

  it("Event from Dictionary", () => {
    const event = MemoryEvent.fromJSON({ event_id: "event_abc123", timestamp: "2024-12-31T12:00:00", event_type: "user_message", content: "Hello!", metadata: {} });
    expect(event).toMatchObject({ eventId: "event_abc123", eventType: "user_message", content: "Hello!", metadata: {} });
    expect(event.timestamp).toBeInstanceOf(Date);
  });

  it("Session to Dictionary", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "user123", sessionId: "session_abc123" });
    await memory.addEvent(sessionId, memory.createEvent("user_message", "Hello!"));
    const session = await memory.getSession(sessionId);
    const sessionDict = MemorySession.toJSON(session!);
    expect(sessionDict).toMatchObject({ session_id: "session_abc123", app_name: "agent", user_id: "user123", events: [{ event_type: "user_message", content: "Hello!" }] });
    expect(MemorySession.fromJSON(JSON.parse(JSON.stringify(sessionDict)))).toEqual(session);
  });
});

describe("seed: Integration with Agent", () => {
  it("Integration with Agent: user_message, tool_call after the tool, agent_response after the answer", async () => {
    const memory = local();
    const sessionId = await memory.createSession({ appName: "agent", userId: "u" });
    const message = "What is 2+2?";
    await memory.addEvent(sessionId, memory.createEvent("user_message", message));
    const toolCall = { tool: "calc", arguments: { expression: "2+2" } };
    await memory.addEvent(sessionId, memory.createEvent("tool_call", toolCall));
    await memory.addEvent(sessionId, memory.createEvent("agent_response", "The answer is 4"));
    expect((await memory.getSessionEvents(sessionId)).map((e) => [e.eventType, e.content])).toEqual([["user_message", message], ["tool_call", toolCall], ["agent_response", "The answer is 4"]]);
  });
});

describe("seed: Memory Endpoints", () => {
  async function serve(memory: Memory): Promise<RunningServer> {
    const server = await startServer({ memory, port: 0, agentName: "my-agent" });
    open.push(server);
    return server;
  }
  type EventsAnswer = { agent: string; events: { event_id: string; event_type: string; content: unknown; session_id: string }[]; total: number };
  const get = async <T>(url: string): Promise<T> => (await fetch(url)).json() as Promise<T>;

  it("GET /memory/events: last 100 by default, ?limit=50, ?session_id=…, and both combined", async () => {
    const memory = local();
    for (const id of ["session_abc123", "session_def456"]) {
      await memory.createSession({ appName: "agent", userId: "u", sessionId: id });
      for (let i = 0; i < 80; i++) await memory.addEvent(id, memory.createEvent("user_message", `${id} ${i}`));
    }
    const { url } = await serve(memory);
    const last100 = await get<EventsAnswer>(`${url}/memory/events`);
    expect([last100.agent, last100.total, last100.events.at(-1)?.content]).toEqual(["my-agent", 100, "session_def456 79"]);
    expect((await get<EventsAnswer>(`${url}/memory/events?limit=50`)).total).toBe(50);
    const one = await get<EventsAnswer>(`${url}/memory/events?session_id=session_abc123`);
    expect([one.total, new Set(one.events.map((e) => e.session_id))]).toEqual([80, new Set(["session_abc123"])]);
    const both = await get<EventsAnswer>(`${url}/memory/events?session_id=session_abc123&limit=20`);
    expect(both.events.map((e) => e.content)).toEqual(Array.from({ length: 20 }, (_, i) => `session_abc123 ${60 + i}`));
    expect(Object.keys(both.events[0]!)).toEqual(expect.arrayContaining(["event_id", "timestamp", "event_type", "content"]));
  });

  it("GET /memory/sessions: all session ids", async () => {
    const memory = local();
    await memory.createSession({ appName: "agent", userId: "u", sessionId: "session_abc123" });
    await memory.createSession({ appName: "agent", userId: "u", sessionId: "session_def456" });
    const { url } = await serve(memory);
    expect(await get(`${url}/memory/sessions`)).toEqual({ agent: "my-agent", sessions: ["session_abc123", "session_def456"], total: 2 });
  });
});

describe("seed: Limitations (the future enhancements, built)", () => {
  it("Redis-backed memory: two replicas on one Redis see one memory", async () => {
    const keyPrefix = uniqueName("amp-seed-test:");
    const podA = new RedisMemory({ url: REDIS_URL, keyPrefix });
    const podB = new RedisMemory({ url: REDIS_URL, keyPrefix });
    open.push(podA, podB);
    const sessionId = await podA.createSession({ appName: "agent", userId: "u" });
    await podA.addEvent(sessionId, podA.createEvent("user_message", "Hello!"));
    expect((await podB.getSessionEvents(sessionId)).map((e) => e.content)).toEqual(["Hello!"]);
    expect(await podB.deleteSession(sessionId)).toBe(true);
  });

  it("PostgreSQL storage: a memory survives its process (a new instance on the same schema reads it)", async () => {
    const schema = uniqueName("amp_seed_");
    const before = new PostgresMemory({ url: PG_URL, schema });
    const sessionId = await before.createSession({ appName: "agent", userId: "u" });
    await before.addEvent(sessionId, before.createEvent("agent_response", "The answer is 4"));
    await before.close();
    const after = new PostgresMemory({ url: PG_URL, schema });
    open.push({ close: async () => dropSchema(after, schema) });
    expect(await after.buildConversationContext(sessionId, { maxEvents: 6 })).toBe("Assistant: The answer is 4");
  });
});

async function dropSchema(memory: PostgresMemory, schema: string): Promise<void> {
  await memory.close();
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
