import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createError, type Message, type Provider } from "../../contracts/index.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";

/** Issue 14, item 8: the documented codes surface; untyped errors became typed; messages read well. */
let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-typed-"));
});
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

const persistent = (config: Record<string, unknown>) => ({ session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId: "s1", ...config } } } });

describe("documented codes at mount", () => {
  it("a second writer on a JSONL session gets e.code SESSION_LOCKED, the module and path in details.mount", async () => {
    sessions.push(await createSession(persistent({})));
    const error = await createSession(persistent({})).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: "SESSION_LOCKED", details: { mount: { module: "context-persistent", path: "session.context", code: "MODULE_MOUNT_FAILED" } } });
    expect((error as Error).message.match(/\[SESSION_LOCKED\]/g)).toHaveLength(1);
    expect((error as Error).message).toContain("while mounting session.context: context-persistent");
  });

  it("strict storage failure: STORAGE_UNAVAILABLE", async () => {
    await writeFile(join(dir, "file"), "x");
    await expect(createSession(persistent({ storagePath: join(dir, "file", "sub"), strict: true }))).rejects.toMatchObject({ code: "STORAGE_UNAVAILABLE" });
  });
});

describe("untyped errors became typed", () => {
  const context = () => new HistoryContextManager({ moduleName: "test" });

  it("deep nesting, functions and symbols in a message: INVALID_MESSAGE naming the path", async () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep.a = {}) as Record<string, unknown>;
    const c = context();
    await expect(c.addMessage({ role: "user", content: "x", metadata: { deep: root } })).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { expected: expect.stringContaining("256 levels") } });
    await expect(c.addMessage({ role: "user", content: "x", metadata: { f: () => 1 } })).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { path: "message.metadata.f" } });
    await expect(c.addMessage({ role: "user", content: "x", metadata: { s: Symbol("s") } })).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { path: "message.metadata.s" } });
  });

  it("a provider whose getInfo throws, returns garbage, or is missing: INVALID_PROVIDER_INFO", async () => {
    const c = context();
    await c.addMessage({ role: "user", content: "hi" });
    const throwing = { getInfo() { throw new Error("boom"); } } as unknown as Provider;
    await expect(c.getMessagesForRequest(undefined, throwing)).rejects.toMatchObject({ code: "INVALID_PROVIDER_INFO", message: expect.stringContaining("boom") });
    await expect(c.getMessagesForRequest(undefined, { getInfo: () => 5 } as unknown as Provider)).rejects.toMatchObject({ code: "INVALID_PROVIDER_INFO" });
    await expect(c.getMessagesForRequest(undefined, 7 as unknown as Provider)).rejects.toMatchObject({ code: "INVALID_PROVIDER_INFO" });
  });

  it("bad extraMessages: INVALID_ARGUMENT naming options.extraMessages", async () => {
    await expect(context().getMessagesForRequest(1_000, undefined, { extraMessages: 5 as unknown as Message[] })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "options.extraMessages" } });
  });

  it("a long camelCase search query does not overflow the stack", async () => {
    const c = context();
    await c.addMessage({ role: "user", content: "fetch the user record" });
    await expect(c.search("aB".repeat(200_000))).resolves.toBeInstanceOf(Array);
  });

  it("a fractional budget is INVALID_BUDGET; NaN is shown as NaN", async () => {
    const c = context();
    await c.addMessage({ role: "user", content: "hi" });
    await expect(c.getMessagesForRequest(1_000.5)).rejects.toMatchObject({ code: "INVALID_BUDGET" });
    const error = await c.getMessagesForRequest(Number.NaN).then(() => undefined, (e: Error) => e);
    expect(error?.message).toContain("given NaN");
  });
});

describe("error messages", () => {
  it("print the code once when built from another error's message", () => {
    const inner = createError("STORAGE_UNAVAILABLE", "disk gone");
    expect(createError("STORAGE_UNAVAILABLE", inner.message).message).toBe("[STORAGE_UNAVAILABLE] disk gone");
  });
});
