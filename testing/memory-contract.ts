import { afterEach, describe, expect, it } from "vitest";
import { isAmplifierError, MemoryEvent, MemorySession, type Memory, type RecentEventsOptions } from "@amplifier-ts/contracts";

/** One memory to test, and how to throw it away. `storage` says where it keeps its data (for writer processes). */
export interface MemoryUnderTest {
  memory: Memory;
  storage?: unknown;
  cleanup?(): Promise<void>;
}

export interface MemoryLimitsForTest {
  maxSessions?: number;
  maxEventsPerSession?: number;
  contextLimit?: number;
}

export interface MemoryContractOptions {
  /** The memory stores nothing (memory-null): the suite checks that every call succeeds and answers empty. */
  storesNothing?: boolean;
  /**
   * For memories several processes share: start a process that adds `count` events to
   * `sessionId` of the memory `under` (its `storage` says where), awaiting each, every one a
   * `user_message` with content `w<writer>-<seq>` and metadata { writer, seq }; resolve when it exited successfully.
   */
  spawnWriter?(under: MemoryUnderTest, job: { sessionId: string; writer: number; count: number }): Promise<void>;
  processes?: number;
  eventsPerProcess?: number;
  /**
   * The memory was written for version 1 and has no getRecentEvents: the suite leaves out the
   * checks of it (recentMemoryEvents of @amplifier-ts/memory-base answers for such a memory by
   * reading every session; its own tests cover that).
   */
  withoutRecentEvents?: boolean;
}

/**
 * The conformance suite of the memory contract (contracts/MEMORY.md): every memory module — ours
 * and third parties' — runs it. `factory(limits)` returns a fresh, empty memory with those limits.
 */
export function describeMemoryContract(name: string, factory: (limits: MemoryLimitsForTest) => Promise<MemoryUnderTest>, options: MemoryContractOptions = {}): void {
  describe(`memory contract: ${name}`, () => {
    const made: MemoryUnderTest[] = [];
    const make = async (limits: MemoryLimitsForTest = {}) => {
      const under = await factory(limits);
      made.push(under);
      return under.memory;
    };
    afterEach(async () => {
      for (const under of made.splice(0)) {
        await under.memory.close();
        await under.cleanup?.();
      }
    });

    describe("arguments", () => {
      it("refuses bad session ids with INVALID_SESSION_ID naming the argument", async () => {
        const memory = await make();
        for (const bad of ["", "../etc", ".hidden", "a b", "x".repeat(129), 42]) {
          const error = await memory.getSessionEvents(bad as string).catch((e: unknown) => e);
          expect(isAmplifierError(error, "INVALID_SESSION_ID"), `id ${JSON.stringify(bad)}`).toBe(true);
        }
        const created = await memory.createSession({ appName: "a", userId: "u", sessionId: "a/b" }).catch((e: unknown) => e);
        expect(isAmplifierError(created, "INVALID_SESSION_ID") && created.path).toBe("createSession.sessionId");
      });

      it("refuses a missing appName or userId, a bad maxEvents, maxAgeHours or eventTypes with INVALID_ARGUMENT and the path", async () => {
        const memory = await make();
        const cases: [() => Promise<unknown>, string][] = [
          [() => memory.createSession({ userId: "u" } as never), "createSession.appName"],
          [() => memory.getOrCreateSession({ appName: "a", userId: 7 } as never), "getOrCreateSession.userId"],
          [() => memory.buildConversationContext("s1", { maxEvents: -1 }), "buildConversationContext.maxEvents"],
          [() => memory.cleanupOldSessions({ maxAgeHours: Number.NaN }), "cleanupOldSessions.maxAgeHours"],
          [() => memory.getSessionEvents("s1", { eventTypes: "user_message" as never }), "getSessionEvents.eventTypes"],
        ];
        for (const [call, path] of cases) {
          const error = await call().catch((e: unknown) => e);
          expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.path, path).toBe(path);
        }
      });

      it("createEvent refuses content that is not JSON, and addEvent a value that is not an event", async () => {
        const memory = await make();
        expect(() => memory.createEvent("tool_result", { tool: "t", result: () => 1 } as never)).toThrow(/content/);
        expect(() => memory.createEvent("user_message", 1n as never)).toThrow();
        const sessionId = await memory.createSession({ appName: "a", userId: "u" });
        const error = await memory.addEvent(sessionId, { eventType: "user_message", content: "hi" } as never).catch((e: unknown) => e);
        expect(isAmplifierError(error, "INVALID_ARGUMENT")).toBe(true);
      });
    });

    it("createEvent builds an event with a unique id, the time, the type, the content and metadata ({} by default)", async () => {
      const memory = await make();
      const before = Date.now();
      const a = memory.createEvent("user_message", "Hello!", { source: "api" });
      const b = memory.createEvent("tool_call", { tool: "calc", arguments: { a: 2, b: 2 } });
      expect(a).toMatchObject({ eventType: "user_message", content: "Hello!", metadata: { source: "api" } });
      expect(a.eventId).toMatch(/^event_/);
      expect(a.eventId).not.toBe(b.eventId);
      expect(b.metadata).toEqual({});
      expect(a.timestamp.getTime()).toBeGreaterThanOrEqual(before);
      expect(MemoryEvent.fromJSON(JSON.parse(JSON.stringify(MemoryEvent.toJSON(a))))).toEqual(a);
    });

    if (options.storesNothing) {
      it("every operation succeeds and nothing is stored", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "agent", userId: "u", sessionId: "given" });
        expect(id).toBe("given");
        expect(await memory.getOrCreateSession({ sessionId: "other", appName: "agent", userId: "u" })).toBe("other");
        expect(await memory.addEvent(id, memory.createEvent("user_message", "hi"))).toBe(true);
        expect(await memory.getSession(id)).toBeUndefined();
        expect(await memory.getSessionEvents(id)).toEqual([]);
        expect(await memory.listSessions()).toEqual([]);
        expect(await memory.buildConversationContext(id, { maxEvents: 5 })).toBe("");
        expect(await memory.deleteSession(id)).toBe(true);
        expect(await memory.cleanupOldSessions({ maxAgeHours: 0 })).toBe(0);
        expect(await memory.getMemoryStats()).toEqual({ totalSessions: 0, totalEvents: 0, avgEventsPerSession: 0 });
        if (!options.withoutRecentEvents) expect(await recent(memory, { limit: 10 })).toEqual([]);
      });
      return;
    }

    describe("sessions", () => {
      it("createSession returns the given id or a new one; a taken id is MEMORY/SESSION_EXISTS", async () => {
        const memory = await make();
        expect(await memory.createSession({ appName: "agent", userId: "user123", sessionId: "custom-id" })).toBe("custom-id");
        const generated = await memory.createSession({ appName: "agent", userId: "user123" });
        expect(generated).toMatch(/^session_/);
        const error = await memory.createSession({ appName: "agent", userId: "x", sessionId: "custom-id" }).catch((e: unknown) => e);
        expect(isAmplifierError(error, "MEMORY/SESSION_EXISTS")).toBe(true);
      });

      it("getOrCreateSession creates once and then returns the same session, events kept", async () => {
        const memory = await make();
        const id = await memory.getOrCreateSession({ sessionId: "provided-id", appName: "agent", userId: "user" });
        await memory.addEvent(id, memory.createEvent("user_message", "one"));
        expect(await memory.getOrCreateSession({ sessionId: "provided-id", appName: "agent", userId: "user" })).toBe("provided-id");
        expect((await memory.getSessionEvents(id)).map((e) => e.content)).toEqual(["one"]);
      });

      it("getSession returns the session with its events; an unknown id is undefined", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "agent", userId: "u1", sessionId: "s1" });
        const event = memory.createEvent("agent_response", "The answer is 4", { model: "m" });
        await memory.addEvent(id, event);
        const session = await memory.getSession(id);
        expect(session).toMatchObject({ sessionId: "s1", appName: "agent", userId: "u1" });
        expect(session!.events).toEqual([event]);
        expect(session!.updatedAt.getTime()).toBeGreaterThanOrEqual(session!.createdAt.getTime());
        expect(MemorySession.fromJSON(JSON.parse(JSON.stringify(MemorySession.toJSON(session!))))).toEqual(session);
        expect(await memory.getSession("nobody")).toBeUndefined();
      });

      it("listSessions lists ids oldest first, filtered by userId", async () => {
        const memory = await make();
        await memory.createSession({ appName: "a", userId: "user123", sessionId: "s1" });
        await memory.createSession({ appName: "a", userId: "other", sessionId: "s2" });
        await memory.createSession({ appName: "a", userId: "user123", sessionId: "s3" });
        expect(await memory.listSessions()).toEqual(["s1", "s2", "s3"]);
        expect(await memory.listSessions({ userId: "user123" })).toEqual(["s1", "s3"]);
        expect(await memory.listSessions({ userId: "nobody" })).toEqual([]);
      });

      it("deleteSession removes the session and its events: true, then false", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u" });
        await memory.addEvent(id, memory.createEvent("user_message", "x"));
        expect(await memory.deleteSession(id)).toBe(true);
        expect(await memory.deleteSession(id)).toBe(false);
        expect(await memory.getSession(id)).toBeUndefined();
        expect(await memory.getSessionEvents(id)).toEqual([]);
        expect(await memory.getMemoryStats()).toEqual({ totalSessions: 0, totalEvents: 0, avgEventsPerSession: 0 });
      });

      it("past maxSessions, creating a session removes the oldest 10 % first", async () => {
        const memory = await make({ maxSessions: 20 });
        for (let i = 0; i < 20; i++) await memory.createSession({ appName: "a", userId: "u", sessionId: `s${String(i).padStart(2, "0")}` });
        await memory.createSession({ appName: "a", userId: "u", sessionId: "new" });
        const ids = await memory.listSessions();
        expect(ids).toHaveLength(19);
        expect(ids).not.toContain("s00");
        expect(ids).not.toContain("s01");
        expect(ids.at(-1)).toBe("new");
        expect(ids[0]).toBe("s02");
      });
    });

    describe("events", () => {
      it("addEvent stores in order and answers true; an unknown session stores nothing and answers false", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u" });
        const events = [memory.createEvent("user_message", "What is 2+2?"), memory.createEvent("tool_call", { tool: "calc", arguments: { a: 2 } }), memory.createEvent("tool_result", { tool: "calc", result: 4 }), memory.createEvent("agent_response", "The answer is 4")];
        for (const event of events) expect(await memory.addEvent(id, event)).toBe(true);
        expect(await memory.getSessionEvents(id)).toEqual(events);
        expect(await memory.addEvent("unknown", memory.createEvent("user_message", "lost"))).toBe(false);
        expect(await memory.getSessionEvents("unknown")).toEqual([]);
        expect(await memory.listSessions()).toEqual([id]);
      });

      it("getSessionEvents filters by eventTypes, keeping the order", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u" });
        for (const [type, content] of [["user_message", "q1"], ["tool_call", { tool: "t", arguments: {} }], ["agent_response", "a1"], ["error", "Connection failed"], ["user_message", "q2"]] as const) {
          await memory.addEvent(id, memory.createEvent(type, content as never));
        }
        const talk = await memory.getSessionEvents(id, { eventTypes: ["user_message", "agent_response"] });
        expect(talk.map((e) => e.content)).toEqual(["q1", "a1", "q2"]);
        expect((await memory.getSessionEvents(id, { eventTypes: [] })).length).toBe(0);
        expect((await memory.getSessionEvents(id, { eventTypes: ["custom_type"] })).length).toBe(0);
      });

      it("keeps only the newest maxEventsPerSession events of a session", async () => {
        const memory = await make({ maxEventsPerSession: 5 });
        const id = await memory.createSession({ appName: "a", userId: "u" });
        for (let i = 0; i < 12; i++) await memory.addEvent(id, memory.createEvent("user_message", `m${i}`));
        expect((await memory.getSessionEvents(id)).map((e) => e.content)).toEqual(["m7", "m8", "m9", "m10", "m11"]);
        expect((await memory.getMemoryStats()).totalEvents).toBe(5);
      });

      it("events added concurrently are all stored (none lost or doubled)", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u" });
        await Promise.all(Array.from({ length: 40 }, (_, i) => memory.addEvent(id, memory.createEvent("user_message", `c${i}`))));
        const contents = (await memory.getSessionEvents(id)).map((e) => e.content as string);
        expect(contents.slice().sort()).toEqual(Array.from({ length: 40 }, (_, i) => `c${i}`).sort());
      });

      it("events are stored and read as copies: changing the caller's objects after addEvent, or an event read back, changes nothing stored", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u", sessionId: "copies" });
        const content = { tool: "shell", arguments: { command: "rm -rf build", force: false } };
        const metadata = { source: "agent", tags: ["x"] };
        const event = memory.createEvent("tool_call", content, metadata);
        const recorded = JSON.parse(JSON.stringify(MemoryEvent.toJSON(event))) as unknown;
        await memory.addEvent(id, event);
        // The caller reuses its objects after recording them.
        content.arguments.force = true;
        metadata.tags.push("edited");
        event.timestamp.setTime(0);
        const read = await memory.getSessionEvents(id);
        expect(read.map((e) => MemoryEvent.toJSON(e))).toEqual([recorded]);
        // A reader edits what it read: through every read path, in depth.
        (read[0]!.content as typeof content).arguments.command = "changed by a reader";
        read[0]!.metadata.source = "reader";
        const [fromSession] = (await memory.getSession(id))!.events;
        (fromSession!.content as typeof content).arguments.force = true;
        fromSession!.timestamp.setTime(1);
        if (memory.getRecentEvents) {
          const [latest] = await memory.getRecentEvents({ limit: 1 });
          (latest!.event.metadata.tags as string[]).length = 0;
        }
        expect((await memory.getSessionEvents(id)).map((e) => MemoryEvent.toJSON(e))).toEqual([recorded]);
        expect((await memory.getSession(id))!.events.map((e) => MemoryEvent.toJSON(e))).toEqual([recorded]);
        expect(await memory.buildConversationContext(id, { maxEvents: 5 })).toBe("");
      });

      it("custom event types and JSON content of any shape round-trip", async () => {
        const memory = await make();
        const id = await memory.createSession({ appName: "a", userId: "u" });
        const event = memory.createEvent("plan_step", { step: 1, nested: [null, true, 1.5, "ü ✓", { deep: {} }] }, { tags: ["x"] });
        await memory.addEvent(id, event);
        expect(await memory.getSessionEvents(id, { eventTypes: ["plan_step"] })).toEqual([event]);
      });
    });

    describe.skipIf(options.withoutRecentEvents === true)("recent events over every session (getRecentEvents)", () => {
      it("the memory has getRecentEvents; a bad limit or eventTypes is INVALID_ARGUMENT with the path", async () => {
        const memory = await make();
        expect(typeof memory.getRecentEvents).toBe("function");
        for (const [bad, path] of [[{ limit: -1 }, "getRecentEvents.limit"], [{ limit: 1.5 }, "getRecentEvents.limit"], [{}, "getRecentEvents.limit"], [{ limit: 5, eventTypes: "error" }, "getRecentEvents.eventTypes"]] as const) {
          const error = await memory.getRecentEvents!(bad as never).catch((e: unknown) => e);
          expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.path, JSON.stringify(bad)).toBe(path);
        }
      });

      it("the newest `limit` events over all sessions in the order they were added, newest last, each with its session", async () => {
        const memory = await make();
        const a = await memory.createSession({ appName: "a", userId: "u", sessionId: "sa" });
        const b = await memory.createSession({ appName: "a", userId: "u", sessionId: "sb" });
        await memory.createSession({ appName: "a", userId: "u", sessionId: "empty" });
        const added: [string, MemoryEvent][] = [];
        for (const [i, [id, content]] of ([[a, "a1"], [b, "b1"], [b, "b2"], [a, "a2"], [b, "b3"], [a, "a3"]] as const).entries()) {
          const event = { ...memory.createEvent("user_message", content), timestamp: secondsAfter2024(i) };
          await memory.addEvent(id, event);
          added.push([id, event]);
        }
        expect(await recent(memory, { limit: 4 })).toEqual(added.slice(-4).map(([sessionId, event]) => ({ sessionId, event })));
        expect(await recent(memory, { limit: 1000 })).toEqual(added.map(([sessionId, event]) => ({ sessionId, event })));
        expect(await recent(memory, { limit: 0 })).toEqual([]);
      });

      it("filters by eventTypes, and leaves out evicted events and deleted sessions", async () => {
        const memory = await make({ maxEventsPerSession: 3 });
        const a = await memory.createSession({ appName: "a", userId: "u", sessionId: "sa" });
        const b = await memory.createSession({ appName: "a", userId: "u", sessionId: "sb" });
        const c = await memory.createSession({ appName: "a", userId: "u", sessionId: "sc" });
        let i = 0;
        const add = (id: string, type: string, content: string) => memory.addEvent(id, { ...memory.createEvent(type, content as never), timestamp: secondsAfter2024(i++) });
        for (let i = 0; i < 5; i++) await add(a, i % 2 === 0 ? "user_message" : "error", `a${i}`);
        await add(b, "agent_response", "b0");
        await add(c, "user_message", "c0");
        await memory.deleteSession(c);
        const contents = async (options: RecentEventsOptions) => (await recent(memory, options)).map((r) => `${r.sessionId}:${String(r.event.content)}`);
        // sa keeps a2 a3 a4 (a0 and a1 evicted); sc is gone.
        expect(await contents({ limit: 100 })).toEqual(["sa:a2", "sa:a3", "sa:a4", "sb:b0"]);
        expect(await contents({ limit: 100, eventTypes: ["user_message"] })).toEqual(["sa:a2", "sa:a4"]);
        expect(await contents({ limit: 1, eventTypes: ["user_message", "error"] })).toEqual(["sa:a4"]);
        expect(await contents({ limit: 100, eventTypes: [] })).toEqual([]);
        await memory.cleanupOldSessions({ maxAgeHours: 0 });
        expect(await contents({ limit: 100 })).toEqual([]);
      });

      it("sessions evicted past maxSessions take their events out of the recent ones", async () => {
        const memory = await make({ maxSessions: 3 });
        for (const id of ["s1", "s2", "s3"]) {
          await memory.createSession({ appName: "a", userId: "u", sessionId: id });
          await memory.addEvent(id, memory.createEvent("user_message", id));
        }
        await memory.createSession({ appName: "a", userId: "u", sessionId: "s4" });
        expect((await recent(memory, { limit: 10 })).map((r) => r.sessionId)).toEqual(["s2", "s3"]);
      });
    });

    it("buildConversationContext: the newest maxEvents user and assistant turns as User:/Assistant: lines", async () => {
      const memory = await make();
      const id = await memory.createSession({ appName: "a", userId: "u" });
      const add = (type: string, content: unknown) => memory.addEvent(id, memory.createEvent(type, content as never));
      await add("user_message", "Hello!");
      await add("agent_response", "Hi there!");
      await add("tool_call", { tool: "clock", arguments: {} });
      await add("user_message", "How are you?");
      expect(await memory.buildConversationContext(id, { maxEvents: 20 })).toBe("User: Hello!\nAssistant: Hi there!\nUser: How are you?");
      expect(await memory.buildConversationContext(id, { maxEvents: 2 })).toBe("Assistant: Hi there!\nUser: How are you?");
      expect(await memory.buildConversationContext(id, { maxEvents: 0 })).toBe("");
      expect(await memory.buildConversationContext("unknown", { maxEvents: 5 })).toBe("");
    });

    it("cleanupOldSessions removes sessions last changed more than maxAgeHours ago and counts them", async () => {
      const memory = await make();
      await memory.createSession({ appName: "a", userId: "u", sessionId: "s1" });
      await memory.createSession({ appName: "a", userId: "u", sessionId: "s2" });
      expect(await memory.cleanupOldSessions({ maxAgeHours: 24 })).toBe(0);
      expect(await memory.listSessions()).toEqual(["s1", "s2"]);
      expect(await memory.cleanupOldSessions({ maxAgeHours: 0 })).toBe(2);
      expect(await memory.listSessions()).toEqual([]);
    });

    it("getMemoryStats counts sessions and events; the average is rounded down", async () => {
      const memory = await make();
      expect(await memory.getMemoryStats()).toEqual({ totalSessions: 0, totalEvents: 0, avgEventsPerSession: 0 });
      const a = await memory.createSession({ appName: "a", userId: "u" });
      const b = await memory.createSession({ appName: "a", userId: "u" });
      await memory.createSession({ appName: "a", userId: "u" });
      for (let i = 0; i < 5; i++) await memory.addEvent(a, memory.createEvent("user_message", `${i}`));
      for (let i = 0; i < 3; i++) await memory.addEvent(b, memory.createEvent("user_message", `${i}`));
      expect(await memory.getMemoryStats()).toEqual({ totalSessions: 3, totalEvents: 8, avgEventsPerSession: 2 });
    });

    it("after close every call fails with MEMORY/CLOSED; close is idempotent", async () => {
      const memory = await make();
      await memory.close();
      await memory.close();
      const error = await memory.listSessions().catch((e: unknown) => e);
      expect(isAmplifierError(error, "MEMORY/CLOSED")).toBe(true);
    });

    if (options.spawnWriter) {
      const spawnWriter = options.spawnWriter;
      const processes = options.processes ?? 3;
      const count = options.eventsPerProcess ?? 40;
      it(`${processes} writer processes and this one add to one session: nothing lost, doubled or reordered per writer`, async () => {
        const under = await factory({ maxEventsPerSession: 100_000 });
        made.push(under);
        const id = await under.memory.createSession({ appName: "agent", userId: "u", sessionId: "shared" });
        const mine = (async () => {
          for (let seq = 0; seq < count; seq++) await under.memory.addEvent(id, under.memory.createEvent("user_message", `w${processes}-${seq}`, { writer: processes, seq }));
        })();
        await Promise.all([...Array.from({ length: processes }, (_, writer) => spawnWriter(under, { sessionId: id, writer, count })), mine]);
        const events = await under.memory.getSessionEvents(id);
        expect(events).toHaveLength((processes + 1) * count);
        expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
        for (let writer = 0; writer <= processes; writer++) {
          const seqs = events.filter((e) => e.metadata.writer === writer).map((e) => e.metadata.seq);
          expect(seqs, `writer ${writer}`).toEqual(Array.from({ length: count }, (_, i) => i));
        }
        expect((await under.memory.getMemoryStats()).totalEvents).toBe(events.length);
        // One session: the memory-wide order of additions is the session's order.
        if (!options.withoutRecentEvents) expect((await recent(under.memory, { limit: events.length })).map((r) => r.event.eventId)).toEqual(events.map((e) => e.eventId));
      });
    }
  });
}

/** The memory's getRecentEvents (called only where the memory has it: not withoutRecentEvents). */
function recent(memory: Memory, options: RecentEventsOptions) {
  if (typeof memory.getRecentEvents !== "function") throw new Error("the memory has no getRecentEvents: run the suite with { withoutRecentEvents: true }");
  return memory.getRecentEvents(options);
}

/** Distinct, increasing event times (a memory that orders recent events by event time sees the order of addition). */
function secondsAfter2024(seconds: number): Date {
  return new Date(Date.UTC(2024, 0, 1) + seconds * 1000);
}
