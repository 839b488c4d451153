import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import type { HistoryStore } from "../../contracts/history-store.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { MemoryStore } from "../../src/modules/stores.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { Coordinator } from "../../core/coordinator.js";

let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-persistent-"));
});
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(config: Record<string, unknown> = {}, sessionId = "s1"): Promise<Session> {
  const session = await createSession({
    session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId, ...config } } },
  });
  sessions.push(session);
  return session;
}

const lines = async (file: string) => (await readFile(file, "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l));

describe("context-persistent", () => {
  it("resumes a session: the history survives close and reopen, in order, with ids", async () => {
    const first = await open();
    await first.context.addMessage({ role: "user", content: "hello" });
    await first.context.addMessage({ role: "assistant", content: "hi", metadata: { id: "a-1" } });
    const before = await first.context.getMessages();
    await first.close();
    const second = await open();
    expect(await second.context.getMessages()).toEqual(before);
  });

  it("writes one JSONL line per message, durable when addMessage resolves", async () => {
    const s = await open();
    await s.context.addMessage({ role: "user", content: "one" });
    await s.context.addMessage({ role: "user", content: "two" });
    expect((await lines(join(dir, "s1.jsonl"))).map((m) => m.content)).toEqual(["one", "two"]);
  });

  it("never writes ephemeral messages, but shows them in the live session", async () => {
    const s = await open();
    await s.context.addMessage({ role: "user", content: "kept" });
    await s.context.addMessage({ role: "assistant", content: "step", metadata: { ephemeral: true } });
    expect((await s.context.getMessages()).map((m) => m.content)).toEqual(["kept", "step"]);
    expect((await lines(join(dir, "s1.jsonl"))).map((m) => m.content)).toEqual(["kept"]);
    await s.close();
    expect((await (await open()).context.getMessages()).map((m) => m.content)).toEqual(["kept"]);
  });

  it("retention none never writes; retention run clears a run when it ends", async () => {
    const none = await open({ retention: "none" }, "no-write");
    await none.context.addMessage({ role: "user", content: "x" });
    const written = await readFile(join(dir, "no-write.jsonl"), "utf8").catch(() => "");
    expect(written).toBe("");
    expect((await none.context.getMessages()).map((m) => m.content)).toEqual(["x"]);

    const run = await open({ retention: "run" }, "runs");
    const ctx = run.context as HistoryContextManager;
    await ctx.addMessage({ role: "user", content: "before" });
    const runId = ctx.startRun("run-7");
    await ctx.addMessage({ role: "user", content: "during" });
    expect((await ctx.getMessages()).at(-1)?.metadata?.runId).toBe(runId);
    await ctx.endRun(runId);
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual(["before"]);
    expect((await lines(join(dir, "runs.jsonl"))).map((m) => m.content)).toEqual(["before"]);
  });

  it("setMessages rewrites the file atomically", async () => {
    const s = await open();
    await s.context.addMessage({ role: "user", content: "old" });
    await s.context.setMessages([{ role: "user", content: "new" }]);
    expect((await lines(join(dir, "s1.jsonl"))).map((m) => m.content)).toEqual(["new"]);
  });

  it("falls back to memory with context:storage_fallback when the storage cannot be used", async () => {
    const file = join(dir, "not-a-dir");
    await writeFile(file, "x");
    const coordinator = new Coordinator({ sessionId: "s1" });
    const events: unknown[] = [];
    coordinator.hooks.on("context:storage_fallback", (d) => void events.push(d));
    const context = await mountPersistent(coordinator, { storagePath: join(file, "sessions") });
    await context.addMessage({ role: "user", content: "still works" });
    expect((await context.getMessages()).map((m) => m.content)).toEqual(["still works"]);
    expect(events).toEqual([expect.objectContaining({ reason: expect.any(String), storagePath: join(file, "sessions") })]);
    expect(coordinator.get("context")).toBe(context);
    await coordinator.cleanup();
  });

  it("with strict: true, unusable storage fails the mount with STORAGE_UNAVAILABLE", async () => {
    const file = join(dir, "not-a-dir");
    await writeFile(file, "x");
    await expect(open({ storagePath: join(file, "sessions"), strict: true })).rejects.toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      details: expect.objectContaining({ mount: { module: "context-persistent", path: "session.context", code: "MODULE_MOUNT_FAILED" } }),
      cause: expect.objectContaining({ code: "STORAGE_UNAVAILABLE" }),
    });
  });

  it("refuses a second writer on the same session with SESSION_LOCKED", async () => {
    await open();
    await expect(open()).rejects.toMatchObject({ code: "SESSION_LOCKED", cause: expect.objectContaining({ code: "SESSION_LOCKED" }) });
  });

  it("rejects a session id that could escape the storage folder", async () => {
    await expect(open({}, "../escape")).rejects.toMatchObject({ code: "INVALID_MODULE_CONFIG" });
  });

  it("opens a session whose last line was torn by a crash, reporting it", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "s1.jsonl"), JSON.stringify({ role: "user", content: "whole", metadata: { id: "1" } }) + "\n");
    await appendFile(join(dir, "s1.jsonl"), '{"role":"user","content":"tor');
    const s = await open();
    expect((await s.context.getMessages()).map((m) => m.content)).toEqual(["whole"]);
    await s.context.addMessage({ role: "user", content: "after" });
    expect((await lines(join(dir, "s1.jsonl"))).map((m) => m.content)).toEqual(["whole", "after"]);
  });
});

describe("write failures", () => {
  it("a failing store write rejects addMessage with STORAGE_WRITE_FAILED and stores nothing", async () => {
    const store = new MemoryStore() as HistoryStore;
    const failing: HistoryStore = Object.assign(Object.create(store) as HistoryStore, {
      append: async () => {
        throw new Error("disk full");
      },
    });
    const ctx = new HistoryContextManager({ moduleName: "context-persistent", store: failing, sessionId: "s" });
    await expect(ctx.addMessage({ role: "user", content: "lost?" })).rejects.toMatchObject({ code: "STORAGE_WRITE_FAILED" });
    expect(await ctx.getMessages()).toEqual([]);
    await ctx.addMessage({ role: "user", content: "x" }).catch(() => undefined);
  });
});

describe("repair reporting", () => {
  it("a window that only repairs a crash mid-tool reports it in context:post_compact", async () => {
    const coordinator = new Coordinator();
    const posts: Array<Record<string, unknown>> = [];
    coordinator.hooks.on("context:post_compact", (d) => void posts.push(d as unknown as Record<string, unknown>));
    const context = new HistoryContextManager({ moduleName: "context-simple", hooks: coordinator.hooks });
    await context.addMessage({ role: "user", content: "list files" });
    await context.addMessage({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] });
    await context.getMessagesForRequest(10_000);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.repaired).toMatchObject({ syntheticResults: 1, interruptedCalls: ["c1"] });
    expect(posts[0]!.removed).toBe(0);
  });
});
