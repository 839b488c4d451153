import { describe, expect, it } from "vitest";
import { forAgent, MemoryStore } from "../index.js";

const said = (text: string, runId?: string) => ({ role: "user" as const, content: text, metadata: { id: text, ...(runId ? { runId } : {}) } });
const contents = (messages: { content: unknown }[]) => messages.map((m) => m.content);

describe("forAgent(store, agentId)", () => {
  it("is one agent's view: every method reaches the store with that agent, a scope given to the view is overridden", async () => {
    const store = new MemoryStore();
    const planner = forAgent(store, "planner");
    expect(planner.kind).toBe("memory");
    await planner.append("s", said("a", "r1"));
    await planner.appendMany("s", [said("b"), said("c")]);
    await planner.append("s", said("d"), { agentId: "coder" });
    expect(contents(await store.read("s", { agentId: "planner" }))).toEqual(["a", "b", "c", "d"]);
    expect(await store.count("s")).toBe(0);
    expect(contents(await planner.read("s", { offset: 1, limit: 2, agentId: "coder" }))).toEqual(["b", "c"]);
    expect(contents((await planner.open("s")).messages)).toHaveLength(4);
    expect(await planner.count("s")).toBe(4);
    await planner.clearRun("s", "r1");
    expect(contents(await planner.read("s"))).toEqual(["b", "c", "d"]);
    await planner.replace("s", [said("x")]);
    expect((await planner.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["s", 1]]);
    await planner.closeSession("s");
    await planner.clear("s");
    expect(await planner.count("s")).toBe(0);
    await planner.append("t", said("y"));
    await planner.deleteSession("t");
    expect(await store.listSessions({ agentId: "planner" })).toEqual([expect.objectContaining({ sessionId: "s", count: 0 })]);
    await planner.close();
    await expect(store.count("s")).rejects.toMatchObject({ code: "STORE_CLOSED" });
  });

  it("refuses a bad agent id when the view is made (INVALID_AGENT_ID)", () => {
    expect(() => forAgent(new MemoryStore(), "a/b")).toThrow(expect.objectContaining({ code: "INVALID_AGENT_ID" }));
  });
});
