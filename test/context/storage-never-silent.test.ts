import { readFileSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import { type CreateSessionOptions, type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { STORAGE_WARNING_CODES } from "../../core/storage-health.js";

/**
 * Issue 25, item 10: the graceful fallback to memory stays, but it is never silent for the
 * README's user — listeners given to createSession hear what the mount says, a fallback nobody
 * listens to prints one warning (process.emitWarning, with a code), and session.degraded says it
 * at any time. The same for a session recovered after a crash (torn records skipped).
 */
let dir: string;
let warnings: MockInstance<typeof process.emitWarning>;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-never-silent-"));
  // Spied, not only observed: the warning must not reach the test runner's stderr either.
  warnings = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
});
afterEach(async () => {
  warnings.mockRestore();
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(contextConfig: Record<string, unknown>, options: CreateSessionOptions = {}, extra: Record<string, unknown> = {}): Promise<Session> {
  const session = await createSession({ session: { context: { module: "context-persistent", config: { sessionId: "s1", ...contextConfig } } }, ...extra }, { cwd: dir, ...options });
  sessions.push(session);
  return session;
}

/** The warnings our code asked for: [message, code]. */
const ourWarnings = () =>
  warnings.mock.calls
    .map(([message, options]) => [String(message), typeof options === "object" && options !== null ? (options as { code?: string }).code : undefined] as const)
    .filter(([, code]) => typeof code === "string" && code.startsWith("AMPLIFIER_STORAGE_"));

/** A storagePath that is a file: the JSONL store cannot make its folder there. */
async function fileAsStoragePath(): Promise<string> {
  const file = join(dir, "not-a-folder");
  await writeFile(file, "x");
  return join(file, "sessions");
}

describe("a storage fallback nobody listens to", () => {
  it("prints one warning with the code AMPLIFIER_STORAGE_FALLBACK naming the store, the reason and how to be strict; still graceful", async () => {
    const storagePath = await fileAsStoragePath();
    const session = await open({ storagePath });

    expect(ourWarnings()).toEqual([[expect.stringContaining(storagePath), "AMPLIFIER_STORAGE_FALLBACK"]]);
    const [message] = ourWarnings()[0]!;
    expect(message).toContain("context-persistent");
    expect(message).toContain("jsonl store");
    expect(message).toContain('"strict": true');
    expect(message).toContain(session.degraded?.fallback?.reason ?? "no reason");
    await session.context.addMessage({ role: "user", content: "kept in memory" });
    expect((await session.context.getMessages()).map((m) => m.content)).toEqual(["kept in memory"]);
  });

  it("session.degraded says it at any time; a working store leaves it undefined and warns nothing", async () => {
    const fallen = await open({ storagePath: await fileAsStoragePath() });
    expect(fallen.degraded).toEqual({ fallback: { store: "jsonl", storagePath: join(dir, "not-a-folder", "sessions"), reason: expect.any(String) } });
    await fallen.context.addMessage({ role: "user", content: "later" });
    expect(fallen.degraded?.fallback?.store).toBe("jsonl");

    warnings.mockClear();
    const healthy = await open({ storagePath: join(dir, "sessions") }, { sessionId: "other" }, {});
    expect(healthy.degraded).toBeUndefined();
    expect(ourWarnings()).toEqual([]);
  });

  it("an unreachable PostgreSQL: the same warning, naming the postgres store and the server", async () => {
    // connectTimeoutMs keeps the decision short; nothing listens on port 1.
    const session = await open({ store: { type: "postgres", url: "postgres://postgres@127.0.0.1:1/test", connectTimeoutMs: 200 } });
    expect(session.degraded?.fallback).toMatchObject({ store: "postgres", reason: expect.stringContaining("127.0.0.1:1") });
    expect(ourWarnings()).toEqual([[expect.stringMatching(/postgres store cannot be used: .*127\.0\.0\.1:1/), "AMPLIFIER_STORAGE_FALLBACK"]]);
  });

  it("warns once per session: each session that falls back says it once", async () => {
    const storagePath = await fileAsStoragePath();
    await open({ storagePath, sessionId: "a" });
    await open({ storagePath, sessionId: "b" });
    expect(ourWarnings().map(([, code]) => code)).toEqual(["AMPLIFIER_STORAGE_FALLBACK", "AMPLIFIER_STORAGE_FALLBACK"]);
  });
});

describe("createSession(config, { on })", () => {
  it('"context:storage_fallback" is heard during mount, with its payload; whoever listens gets no warning', async () => {
    const heard: AmplifierEvents["context:storage_fallback"][] = [];
    const storagePath = await fileAsStoragePath();
    const session = await open({ storagePath }, { on: { "context:storage_fallback": (event) => void heard.push(event) } });
    expect(heard).toEqual([{ store: "jsonl", storagePath, reason: expect.stringContaining("not-a-folder") }]);
    expect(session.degraded?.fallback).toEqual(heard[0]);
    expect(ourWarnings()).toEqual([]);
  });

  it("registers before any module mounts: module:mounted of the context is heard too", async () => {
    const mounted: string[] = [];
    await open({ storagePath: join(dir, "sessions") }, { on: { "module:mounted": (event) => void mounted.push(`${event.point}:${event.module}`) } });
    expect(mounted).toEqual(["context:context-persistent"]);
  });

  it("the listeners hear what modules say while they close, and are gone after close()", async () => {
    const degraded: string[] = [];
    const session = await open({ storagePath: join(dir, "sessions") }, { on: { "context:storage_degraded": (event) => void degraded.push(event.reason) } });
    session.coordinator.registerCleanup(() => session.hooks.emit("context:storage_degraded", { reason: "while closing" }));
    await session.close();
    await session.hooks.emit("context:storage_degraded", { reason: "after close" });
    expect(degraded).toEqual(["while closing"]);
    expect(ourWarnings()).toEqual([]);
  });

  it("a config hook that listens takes charge too: no warning", async () => {
    await writeFile(join(dir, "listener.mjs"), 'export function mount(coordinator) { coordinator.hooks.on("context:storage_fallback", () => {}); }\n');
    await open({ storagePath: await fileAsStoragePath() }, {}, { hooks: [{ module: "./listener.mjs" }] });
    expect(ourWarnings()).toEqual([]);
  });

  it("a name that is not an event, an observer that is not a function, or an `on` that is not an object: INVALID_EVENT_NAME / INVALID_ARGUMENT before anything mounts", async () => {
    const config = { session: { context: { module: "context-simple", config: {} } } };
    await expect(createSession(config, { on: { "storage fallback": () => undefined } as never })).rejects.toMatchObject({ code: "INVALID_EVENT_NAME" });
    await expect(createSession(config, { on: { "context:storage_fallback": "log it" } as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(createSession(config, { on: 5 as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "createSession.options.on", expected: "an object" } });
  });
});

describe("a session opened after a crash (torn records skipped)", () => {
  async function tornSession(): Promise<string> {
    const storagePath = join(dir, "sessions");
    await mkdir(storagePath, { recursive: true });
    await writeFile(join(storagePath, "s1.jsonl"), JSON.stringify({ role: "user", content: "whole", metadata: { id: "1" } }) + "\n");
    await appendFile(join(storagePath, "s1.jsonl"), '{"role":"user","content":"tor');
    return storagePath;
  }

  it("warns AMPLIFIER_STORAGE_RECOVERED with the count, and session.degraded.recovered says it", async () => {
    const storagePath = await tornSession();
    const session = await open({ storagePath });
    expect(session.degraded?.recovered).toMatchObject({ sessionId: "s1", skippedLines: 1 });
    expect(ourWarnings()).toEqual([[expect.stringMatching(/session "s1".*skipped 1 torn or corrupt record /), "AMPLIFIER_STORAGE_RECOVERED"]]);
    expect((await session.context.getMessages()).map((m) => m.content)).toEqual(["whole"]);
  });

  it('createSession(…, { on: { "context:storage_recovered" } }) hears it during mount: no warning', async () => {
    const heard: number[] = [];
    await open({ storagePath: await tornSession() }, { on: { "context:storage_recovered": (event) => void heard.push(event.skippedLines) } });
    expect(heard).toEqual([1]);
    expect(ourWarnings()).toEqual([]);
  });
});

describe("a context module that reports lost guarantees (context:storage_degraded / _restored)", () => {
  it("one warning however often it is said; session.degraded lists them until storage_restored clears them", async () => {
    await writeFile(
      join(dir, "flaky-context.mjs"),
      `export async function mount(coordinator) {
  const history = [];
  const context = {
    addMessage: async (m) => void history.push(m),
    getMessagesForRequest: async () => [...history],
    getMessages: async () => [...history],
    setMessages: async (ms) => void history.splice(0, history.length, ...ms),
    clear: async () => void history.splice(0),
    degrade: (reason) => coordinator.hooks.emit("context:storage_degraded", { reason, store: "flaky" }),
    restore: () => coordinator.hooks.emit("context:storage_restored", { reason: "back", store: "flaky" }),
  };
  await coordinator.mount("context", context);
  await context.degrade("fsync failed");
}
`,
    );
    const session = await createSession({ session: { context: { module: "./flaky-context.mjs" } } }, { cwd: dir });
    sessions.push(session);
    const context = session.context as unknown as { degrade(reason: string): Promise<unknown>; restore(): Promise<unknown> };
    await context.degrade("fsync failed again");
    expect(session.degraded?.degraded?.map((d) => d.reason)).toEqual(["fsync failed", "fsync failed again"]);
    expect(ourWarnings()).toEqual([[expect.stringContaining("./flaky-context.mjs: the flaky store works but lost a guarantee: fsync failed;"), "AMPLIFIER_STORAGE_DEGRADED"]]);
    await context.restore();
    expect(session.degraded).toBeUndefined();
  });

  it("the codes are the documented ones (contracts/ERRORS.md, Warnings)", () => {
    const errorsMd = readFileSync(new URL("../../contracts/ERRORS.md", import.meta.url), "utf8");
    for (const [event, code] of Object.entries(STORAGE_WARNING_CODES)) expect(errorsMd).toContain(`- \`${code}\` — \`${event}\``);
  });
});
