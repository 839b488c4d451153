import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { JsonlStore, MemoryStore } from "../../src/modules/stores.js";

/**
 * `agentId` on the context modules' config (issue 18): the history is kept under (agentId,
 * sessionId), so agents that share a store and a session id never see each other's turns.
 */
let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-agents-"));
});
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(module: "context-persistent" | "context-simple", config: Record<string, unknown>): Promise<Session> {
  const session = await createSession({ session: { context: { module, config: module === "context-persistent" ? { storagePath: dir, sessionId: "shared", ...config } : config } } });
  sessions.push(session);
  return session;
}
const contents = async (session: Session) => (await session.context.getMessages()).map((m) => m.content);

describe("context modules: agentId", () => {
  it("context-persistent: two agents on one session id and one folder keep two histories, each resumed alone", async () => {
    const planner = await open("context-persistent", { agentId: "planner" });
    const coder = await open("context-persistent", { agentId: "coder" });
    const unnamed = await open("context-persistent", {});
    await planner.context.addMessage({ role: "user", content: "plan it" });
    await coder.context.addMessage({ role: "user", content: "code it" });
    await unnamed.context.addMessage({ role: "user", content: "default's" });
    await Promise.all(sessions.splice(0).map((s) => s.close()));

    expect(await contents(await open("context-persistent", { agentId: "planner" }))).toEqual(["plan it"]);
    expect(await contents(await open("context-persistent", { agentId: "coder" }))).toEqual(["code it"]);
    expect(await contents(await open("context-persistent", { agentId: "default" }))).toEqual(["default's"]);
    // The default agent's file is where a store without agents put it; the others have folders.
    expect((await readdir(dir)).filter((name) => name === "agents" || name.endsWith(".jsonl")).sort()).toEqual(["agents", "shared.jsonl"]);
    expect(JSON.parse(await readFile(join(dir, "agents", "planner", "shared.jsonl"), "utf8")).content).toBe("plan it");
  });

  it("context-simple and context-persistent expose agentId (default \"default\"); a bad one is INVALID_MODULE_CONFIG at …config.agentId", async () => {
    expect(((await open("context-simple", { agentId: "helper" })).context as HistoryContextManager).agentId).toBe("helper");
    expect(((await open("context-simple", {})).context as HistoryContextManager).agentId).toBe("default");
    for (const module of ["context-simple", "context-persistent"] as const) {
      const error = (await open(module, { agentId: "../x" }).catch((e: unknown) => e)) as { code?: string; details?: { path?: string } };
      expect([error.code, error.details?.path]).toEqual(["INVALID_MODULE_CONFIG", "session.context.config.agentId"]);
    }
  });

  it("retention run: ending a run clears that agent's run only, also when another agent used the same run id", async () => {
    const store = new MemoryStore();
    const make = (agentId: string, retention: "run" | "permanent") =>
      new HistoryContextManager({ moduleName: "test", store, sessionId: "s", options: { agentId, retention } });
    const a = make("a", "run");
    const b = make("b", "permanent");
    a.startRun("r1");
    b.startRun("r1");
    await a.addMessage({ role: "user", content: "a in run" });
    await b.addMessage({ role: "user", content: "b in run" });
    await a.endRun();
    await b.endRun();
    expect((await store.read("s", { agentId: "a" })).map((m) => m.content)).toEqual([]);
    expect((await store.read("s", { agentId: "b" })).map((m) => m.content)).toEqual(["b in run"]);
    await b.clear();
    expect(await store.count("s", { agentId: "b" })).toBe(0);
    await store.close();
  });

  it("the calibration file (the JSONL store's attachment \"calibration\") sits in the agent's folder, beside its session file", async () => {
    const store = new JsonlStore({ storagePath: dir });
    expect(store.attachmentPath("s1", "calibration", { agentId: "planner" })).toBe(join(dir, "agents", "planner", "s1.calibration.json"));
    expect(store.attachmentPath("s1", "calibration")).toBe(join(dir, "s1.calibration.json"));
    await store.writeAttachment("s1", "calibration", "{}\n", { agentId: "planner" });
    expect(await readFile(join(dir, "agents", "planner", "s1.calibration.json"), "utf8")).toBe("{}\n");
    await store.close();
  });
});
