import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlStore, jsonlAgentFolder, jsonlSessionPaths } from "../index.js";

/**
 * Agent scoping in the JSONL store (contracts/HISTORY-STORES.md): a folder per agent, and the
 * migration decision — files written before agents stay where they are and are the default agent's.
 */
const dirs: string[] = [];
const stores: JsonlStore[] = [];
afterEach(async () => {
  await Promise.allSettled(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "jsonl-agents-"));
  dirs.push(dir);
  return dir;
}
function open(storagePath: string): JsonlStore {
  const store = new JsonlStore({ storagePath });
  stores.push(store);
  return store;
}
const line = (text: string, runId?: string) => `${JSON.stringify({ role: "user", content: text, metadata: { id: text, ...(runId ? { runId } : {}) } })}\n`;

describe("JsonlStore agents", () => {
  it("keeps a folder per agent: the default agent's files in the store folder, another agent's under agents/<id>/", async () => {
    const dir = await folder();
    const store = open(dir);
    await store.append("s1", { role: "user", content: "d" });
    await store.append("s1", { role: "user", content: "a" }, { agentId: "alpha" });
    await store.append("s1", { role: "user", content: "b" }, { agentId: "beta" });
    await store.close();
    expect((await readdir(dir)).sort()).toEqual(["agents", "s1.jsonl"]);
    expect((await readdir(join(dir, "agents"))).sort()).toEqual(["alpha", "beta"]);
    expect(await readdir(join(dir, "agents", "alpha"))).toEqual(["s1.jsonl"]);
    expect(JSON.parse(await readFile(join(dir, "agents", "alpha", "s1.jsonl"), "utf8")).content).toBe("a");
    expect((await stat(join(dir, "agents", "alpha"))).mode & 0o777).toBe(0o700);
    expect(jsonlSessionPaths(dir, "alpha", "s1")).toEqual({ dir: join(dir, "agents", "alpha"), file: join(dir, "agents", "alpha", "s1.jsonl"), lock: join(dir, "agents", "alpha", "s1.lock") });
    expect(jsonlSessionPaths(dir, "default", "s1")).toEqual({ dir, file: join(dir, "s1.jsonl"), lock: join(dir, "s1.lock") });
    expect(jsonlAgentFolder(dir, "default")).toBe(dir);
  });

  it("migration: session files written before agents are the default agent's where they lie — read, listed, appended, never moved", async () => {
    const dir = await folder();
    // The layout of a JsonlStore without agents: flat <id>.jsonl files in the store folder.
    await writeFile(join(dir, "old-1.jsonl"), line("one") + line("two", "r1"), { mode: 0o600 });
    await writeFile(join(dir, "old-2.jsonl"), line("three"), { mode: 0o600 });
    const store = open(dir);
    expect((await store.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["old-1", 2], ["old-2", 1]]);
    expect((await store.open("old-1")).messages.map((m) => m.content)).toEqual(["one", "two"]);
    expect((await store.read("old-2", { agentId: "default" })).map((m) => m.content)).toEqual(["three"]);
    expect(await store.read("old-1", { agentId: "alpha" })).toEqual([]);
    expect(await store.listSessions({ agentId: "alpha" })).toEqual([]);
    await store.append("old-1", { role: "user", content: "four" });
    await store.clearRun("old-1", "r1");
    await store.close();
    expect(await readFile(join(dir, "old-1.jsonl"), "utf8")).toBe(line("one") + `${JSON.stringify({ role: "user", content: "four" })}\n`);
    // old-2 was read, so it got its sidecar index (session-index-file.ts); old-1's was dropped by clearRun.
    expect((await readdir(dir)).sort()).toEqual(["old-1.jsonl", "old-2.jsonl", "old-2.jsonl.index"]);
  });

  it("an agent's session file is locked on its own: two stores may write one session id for two agents at once", async () => {
    const dir = await folder();
    const first = open(dir);
    const second = open(dir);
    await first.append("s1", { role: "user", content: "a" }, { agentId: "alpha" });
    await second.append("s1", { role: "user", content: "b" }, { agentId: "beta" });
    await expect(second.append("s1", { role: "user", content: "x" }, { agentId: "alpha" })).rejects.toMatchObject({ code: "SESSION_LOCKED" });
    expect((await second.read("s1", { agentId: "beta" })).map((m) => m.content)).toEqual(["b"]);
  });

  it("a folder named agents/ beside old files does not confuse the default agent's listing; a stray file in it is ignored", async () => {
    const dir = await folder();
    await mkdir(join(dir, "agents", "alpha"), { recursive: true });
    await writeFile(join(dir, "agents", "alpha", "s9.jsonl"), line("x"));
    await writeFile(join(dir, "agents", "note.txt"), "not an agent");
    const store = open(dir);
    expect(await store.listSessions()).toEqual([]);
    expect((await store.listSessions({ agentId: "alpha" })).map((s) => s.sessionId)).toEqual(["s9"]);
  });
});
