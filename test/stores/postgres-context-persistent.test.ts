import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { livePoolCount } from "@amplifier-ts/pg-kit";
import { dropSchemas, PG_URL, queryOnce, testSchemaName } from "./postgres-support.js";

/** context-persistent with `store: { type: "postgres" }`: resume through PostgreSQL, fallback and strict. */
const schema = testSchemaName();
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
});
afterAll(() => dropSchemas(schema));

async function open(store: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Session> {
  const session = await createSession({
    session: { context: { module: "context-persistent", config: { sessionId: "pg-session", store, ...extra } } },
  });
  sessions.push(session);
  return session;
}

const unreachable = { type: "postgres", url: "postgres://127.0.0.1:1/test", schema, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } };

describe("context-persistent on the postgres store", () => {
  it("resumes a session from PostgreSQL: close, mount again, same history", async () => {
    const first = await open({ type: "postgres", url: PG_URL, schema });
    await first.context.addMessage({ role: "user", content: "hello" });
    await first.context.addMessage({ role: "assistant", content: "hi", metadata: { id: "a-1" } });
    await first.context.addMessage({ role: "assistant", content: "thinking…", metadata: { ephemeral: true } });
    const before = (await first.context.getMessages()).filter((m) => !m.metadata?.ephemeral);
    await first.close();
    expect(livePoolCount(), "closing the session released the pool").toBe(0);

    const rows = await queryOnce<{ content: string }>(`SELECT message->>'content' AS content FROM "${schema}".amplifier_messages WHERE session_id = 'pg-session' ORDER BY seq`);
    expect(rows.map((r) => r.content)).toEqual(["hello", "hi"]);
    const second = await open({ type: "postgres", url: PG_URL, schema });
    expect(await second.context.getMessages()).toEqual(before);
  });

  it("an unreachable server → memory fallback with context:storage_fallback { reason, store: 'postgres' }", async () => {
    const coordinator = new Coordinator({ sessionId: "pg-fallback" });
    const events: { reason: string; store: string }[] = [];
    coordinator.hooks.on("context:storage_fallback", (d) => void events.push(d as { reason: string; store: string }));
    const context = await mountPersistent(coordinator, { store: unreachable as never });
    await context.addMessage({ role: "user", content: "still works" });
    expect((await context.getMessages()).map((m) => m.content)).toEqual(["still works"]);
    expect(events).toEqual([expect.objectContaining({ store: "postgres", reason: expect.stringContaining("127.0.0.1:1") })]);
    await coordinator.cleanup();
    expect(livePoolCount()).toBe(0);
  });

  it("with strict: true an unreachable server fails the mount with STORAGE_UNAVAILABLE", async () => {
    await expect(open(unreachable, { strict: true })).rejects.toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      details: expect.objectContaining({ mount: expect.objectContaining({ path: "session.context", code: "MODULE_MOUNT_FAILED" }) }),
      cause: expect.objectContaining({ code: "STORAGE_UNAVAILABLE", details: expect.objectContaining({ module: "stores/postgres" }) }),
    });
    expect(livePoolCount()).toBe(0);
  });

  it("a config error in the store block (bad schema name) is not a fallback: the mount fails with INVALID_ARGUMENT", async () => {
    await expect(open({ type: "postgres", url: PG_URL, schema: "no-dashes" })).rejects.toMatchObject({
      code: "MODULE_MOUNT_FAILED",
      cause: expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "store.schema" }) }),
    });
  });
});
