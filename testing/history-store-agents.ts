import { describe, expect, it } from "vitest";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { expectCode, numbered, texts, user, type StoreHarness } from "./history-store-helpers.js";

const ALPHA = { agentId: "alpha" };
const BETA = { agentId: "beta" };

/**
 * Agent scoping (HistoryStore contract, version 2): a history is keyed by (agent id, session id).
 * Two agents that use the same session id hold two histories; no call made for one agent reads,
 * lists, changes or deletes the other's. A call without a scope is the default agent's.
 */
export function describeStoreAgents(harness: StoreHarness): void {
  const { make } = harness;

  /** One session id "s1" written by three agents: the default one (no scope), alpha and beta. */
  async function threeAgents(store: HistoryStore): Promise<void> {
    await store.appendMany("s1", numbered(2, "d"));
    await store.append("s1", user("a0"), ALPHA);
    await store.appendMany("s1", [user("a1"), user("a2")], ALPHA);
    await store.append("s1", user("b0"), BETA);
  }

  describe("agents", () => {
    it("two agents with the same session id see only their own messages (append, appendMany, read, count, open)", async () => {
      const store = await make();
      await threeAgents(store);
      expect(texts(await store.read("s1"))).toEqual(["d0", "d1"]);
      expect(texts(await store.read("s1", ALPHA))).toEqual(["a0", "a1", "a2"]);
      expect(texts(await store.read("s1", BETA))).toEqual(["b0"]);
      expect([await store.count("s1"), await store.count("s1", ALPHA), await store.count("s1", BETA)]).toEqual([2, 3, 1]);
      expect(texts((await store.open("s1", ALPHA)).messages)).toEqual(["a0", "a1", "a2"]);
      expect(texts((await store.open("s1", BETA)).messages)).toEqual(["b0"]);
      expect(await store.read("s1", { agentId: "gamma" })).toEqual([]);
      expect(await store.count("s1", { agentId: "gamma" })).toBe(0);
    });

    it("no scope, an empty scope and { agentId: \"default\" } address the same default agent", async () => {
      const store = await make();
      await store.append("s1", user("x"));
      await store.append("s1", user("y"), {});
      await store.append("s1", user("z"), { agentId: "default" });
      await store.append("s1", user("w"), { agentId: undefined });
      expect(texts(await store.read("s1"))).toEqual(["x", "y", "z", "w"]);
      expect(texts(await store.read("s1", { agentId: "default", offset: 1, limit: 2 }))).toEqual(["y", "z"]);
      expect((await store.listSessions({ agentId: "default" })).map((s) => s.sessionId)).toEqual(["s1"]);
    });

    it("paging reads within the agent's own history", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(10, "d"));
      await store.appendMany("s1", numbered(5, "a"), ALPHA);
      expect(texts(await store.read("s1", { ...ALPHA, offset: 3 }))).toEqual(["a3", "a4"]);
      expect(texts(await store.read("s1", { ...ALPHA, offset: 1, limit: 2 }))).toEqual(["a1", "a2"]);
      expect(await store.read("s1", { ...ALPHA, offset: 5 })).toEqual([]);
    });

    it("listSessions lists the scope's agent only, each with its own count", async () => {
      const store = await make();
      await threeAgents(store);
      await store.append("only-alpha", user("x"), ALPHA);
      await store.append("only-default", user("y"));
      const list = async (scope?: { agentId: string }) => (await store.listSessions(scope)).map((s) => [s.sessionId, s.count]);
      expect(await list()).toEqual([["only-default", 1], ["s1", 2]]);
      expect(await list(ALPHA)).toEqual([["only-alpha", 1], ["s1", 3]]);
      expect(await list(BETA)).toEqual([["s1", 1]]);
      expect(await list({ agentId: "gamma" })).toEqual([]);
    });

    it("replace and clear change one agent's history only", async () => {
      const store = await make();
      await threeAgents(store);
      await store.replace("s1", [user("new")], ALPHA);
      expect(texts(await store.read("s1", ALPHA))).toEqual(["new"]);
      await store.clear("s1", BETA);
      expect(await store.read("s1", BETA)).toEqual([]);
      expect(texts(await store.read("s1"))).toEqual(["d0", "d1"]);
      await store.clear("s1");
      expect(texts(await store.read("s1", ALPHA))).toEqual(["new"]);
    });

    it("clearRun drops one agent's run, also when another agent used the same run id", async () => {
      const store = await make();
      await store.appendMany("s1", [user("d-keep"), user("d-run", { runId: "r1" })]);
      await store.appendMany("s1", [user("a-run", { runId: "r1" }), user("a-keep"), user("a-run2", { runId: "r1" })], ALPHA);
      await store.appendMany("s1", [user("b-run", { runId: "r1" })], BETA);
      await store.clearRun("s1", "r1", ALPHA);
      expect(texts(await store.read("s1", ALPHA))).toEqual(["a-keep"]);
      expect(texts(await store.read("s1", BETA))).toEqual(["b-run"]);
      expect(texts(await store.read("s1"))).toEqual(["d-keep", "d-run"]);
      await store.clearRun("s1", "r1");
      expect(texts(await store.read("s1"))).toEqual(["d-keep"]);
      expect(texts(await store.read("s1", BETA))).toEqual(["b-run"]);
      expect(await store.count("s1", ALPHA)).toBe(1);
    });

    it("deleteSession removes one agent's session; closeSession lets go of one agent's only", async () => {
      const store = await make();
      await threeAgents(store);
      await store.deleteSession("s1", ALPHA);
      expect(await store.read("s1", ALPHA)).toEqual([]);
      expect((await store.listSessions(ALPHA)).map((s) => s.sessionId)).toEqual([]);
      expect(texts(await store.read("s1", BETA))).toEqual(["b0"]);
      expect(texts(await store.read("s1"))).toEqual(["d0", "d1"]);
      await store.closeSession("s1", BETA);
      await store.append("s1", user("d2"));
      expect(texts(await store.read("s1", BETA))).toEqual(["b0"]);
      await store.append("s1", user("b1"), BETA);
      expect(texts(await store.read("s1", BETA))).toEqual(["b0", "b1"]);
      await store.deleteSession("s1");
      expect(texts(await store.read("s1", BETA))).toEqual(["b0", "b1"]);
      expect(await store.read("s1")).toEqual([]);
    });

    it("concurrent writers of two agents on one session id never mix, each keeps its call order", async () => {
      const store = await make();
      const calls: Promise<void>[] = [];
      for (let i = 0; i < 30; i++) {
        calls.push(store.append("s1", user(`a${i}`), ALPHA));
        calls.push(store.append("s1", user(`b${i}`), BETA));
      }
      await Promise.all(calls);
      expect(texts(await store.read("s1", ALPHA))).toEqual(texts(numbered(30, "a")));
      expect(texts(await store.read("s1", BETA))).toEqual(texts(numbered(30, "b")));
    });

    it("durable stores: agents stay apart in a new instance over the same storage", async (context) => {
      const under = await harness.makeUnderTest();
      if (!under.reopen) return context.skip();
      await threeAgents(under.store);
      await under.store.close();
      const second = await under.reopen();
      harness.track(second);
      expect(texts((await second.open("s1", ALPHA)).messages)).toEqual(["a0", "a1", "a2"]);
      expect(texts((await second.open("s1")).messages)).toEqual(["d0", "d1"]);
      expect(texts(await second.read("s1", BETA))).toEqual(["b0"]);
      expect((await second.listSessions(BETA)).map((s) => [s.sessionId, s.count])).toEqual([["s1", 1]]);
    });

    it.each([
      ["an empty agent id", ""],
      ["a path separator", "a/b"],
      ["a colon", "a:b"],
      ["a leading dot", ".hidden"],
      ["'..'", "a..b"],
      ["a space", "a b"],
      ["129 characters", "a".repeat(129)],
      ["a number", 7],
      ["null", null],
    ])("refuses %s with INVALID_AGENT_ID from every method", async (_label, agentId) => {
      const store = await make();
      await store.append("s1", user("kept"));
      const scope = { agentId } as never;
      const calls: Promise<unknown>[] = [
        store.open("s1", scope), store.append("s1", user("x"), scope), store.appendMany("s1", [user("x")], scope),
        store.read("s1", scope), store.count("s1", scope), store.replace("s1", [], scope), store.clear("s1", scope),
        store.clearRun("s1", "r", scope), store.listSessions(scope), store.deleteSession("s1", scope), store.closeSession("s1", scope),
      ];
      for (const call of calls) await expectCode(call, "INVALID_AGENT_ID");
      expect(texts(await store.read("s1"))).toEqual(["kept"]);
    });

    it("refuses a scope that is not an object with INVALID_ARGUMENT", async () => {
      const store = await make();
      await expectCode(store.append("s1", user("x"), "alpha" as never), "INVALID_ARGUMENT");
      await expectCode(store.listSessions(["alpha"] as never), "INVALID_ARGUMENT");
      expect(await store.count("s1")).toBe(0);
    });
  });
}
