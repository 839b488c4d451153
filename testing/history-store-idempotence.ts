import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { texts, user, type StoreHarness } from "./history-store-helpers.js";

/**
 * Idempotent appends (contract version 4): an append is keyed by `metadata.id`, so a caller that
 * cannot know whether a write was stored (STORAGE_WRITE_UNCERTAIN) retries it safely.
 *
 * | case | stored history |
 * |---|---|
 * | append of an id the session holds | unchanged: the stored message keeps its place and its content |
 * | appendMany where some ids are stored | only the others are appended, in call order |
 * | one id twice in one call | the first occurrence, once |
 * | retries that race (unawaited calls with one id) | the message once, where the first of them takes effect; every call resolves |
 * | a message without an id | appended each time (nothing to recognise it by) |
 * | ids after replace, clear, clearRun | the ids of the history that is left: a removed message's id can be appended again |
 * | scope | per (agent, session): one id in two sessions or two agents is two messages |
 */
export function describeStoreIdempotence(harness: StoreHarness): void {
  const { make } = harness;
  describe("idempotent appends (by message id)", () => {
    it("appending a message whose id is stored is a no-op: it stays once, in its first position, with its first content", async () => {
      const store = await make();
      await store.append("s1", user("a"));
      await store.append("s1", user("b"));
      await store.append("s1", user("a"));
      await store.append("s1", { ...user("a"), content: "a, changed" });
      const stored = await store.read("s1");
      expect(texts(stored)).toEqual(["a", "b"]);
      expect(await store.count("s1")).toBe(2);
      expect((await store.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["s1", 2]]);
    });

    it("a batch that partly exists appends only the rest, in call order", async () => {
      const store = await make();
      await store.appendMany("s1", [user("a"), user("b")]);
      await store.appendMany("s1", [user("b"), user("c"), user("a"), user("d")]);
      expect(texts(await store.read("s1"))).toEqual(["a", "b", "c", "d"]);
      await store.appendMany("s1", [user("c"), user("d")]);
      expect(await store.count("s1")).toBe(4);
    });

    it("an id repeated within one call is stored once, at its first occurrence", async () => {
      const store = await make();
      await store.appendMany("s1", [user("a"), user("b"), { ...user("a"), content: "a again" }, user("c")]);
      expect(texts(await store.read("s1"))).toEqual(["a", "b", "c"]);
    });

    it("racing retries of one message store it once; every call resolves", async () => {
      const store = await make();
      const x = user("x");
      const y = user("y");
      await Promise.all([store.append("s1", x), store.append("s1", x), store.appendMany("s1", [x, y]), store.append("s1", y), store.append("s1", x)]);
      expect(texts(await store.read("s1"))).toEqual(["x", "y"]);
    });

    it("messages without an id are appended every time (nothing recognises a retry of them)", async () => {
      const store = await make();
      const anonymous: Message = { role: "user", content: "no id" };
      await store.append("s1", anonymous);
      await store.append("s1", anonymous);
      await store.appendMany("s1", [anonymous, anonymous]);
      expect(await store.count("s1")).toBe(4);
    });

    it("ids follow the history: after replace, clearRun or clear, a removed message's id can be appended again", async () => {
      const store = await make();
      await store.appendMany("s1", [user("a"), user("b"), user("r", { runId: "run-1" })]);
      await store.replace("s1", [user("b"), user("r", { runId: "run-1" })]);
      await store.append("s1", user("b"));
      await store.append("s1", user("a"));
      expect(texts(await store.read("s1"))).toEqual(["b", "r", "a"]);
      await store.clearRun("s1", "run-1");
      await store.append("s1", user("a"));
      await store.append("s1", user("r", { runId: "run-2" }));
      expect(texts(await store.read("s1"))).toEqual(["b", "a", "r"]);
      await store.clear("s1");
      await store.appendMany("s1", [user("a"), user("a")]);
      expect(texts(await store.read("s1"))).toEqual(["a"]);
    });

    it("ids are per (agent, session): one id in two sessions or two agents is stored in each", async () => {
      const store = await make();
      await store.append("s1", user("a"));
      await store.append("s2", user("a"));
      await store.append("s1", user("a"), { agentId: "planner" });
      await store.append("s1", user("a"), { agentId: "planner" });
      expect(texts(await store.read("s1"))).toEqual(["a"]);
      expect(texts(await store.read("s2"))).toEqual(["a"]);
      expect(texts(await store.read("s1", { agentId: "planner" }))).toEqual(["a"]);
    });

    it("durable stores: a new instance recognises the ids stored by the old one", async (context) => {
      const under = await harness.makeUnderTest();
      if (!under.reopen) return context.skip();
      await under.store.appendMany("s1", [user("a"), user("b")]);
      await under.store.close();
      const second = await under.reopen();
      harness.track(second);
      await second.append("s1", user("b"));
      await second.appendMany("s1", [user("a"), user("c")]);
      expect(texts(await second.read("s1"))).toEqual(["a", "b", "c"]);
    });
  });
}
