import { describe, expect, it } from "vitest";
import { expectCode, numbered, texts, user, type StoreHarness } from "./history-store-helpers.js";

/** kind, closeSession, close (idempotent, STORE_CLOSED after), durability across instances. */
export function describeStoreLifecycle(harness: StoreHarness): void {
  const { make } = harness;
  describe("lifecycle", () => {
    it("has a kind", async () => {
      const store = await make();
      expect(typeof store.kind).toBe("string");
      expect(store.kind.length).toBeGreaterThan(0);
    });

    it("closeSession lets go of a session and keeps its history", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(3));
      await store.closeSession("s1");
      await store.closeSession("never-opened");
      expect(texts(await store.read("s1"))).toEqual(["m0", "m1", "m2"]);
      await store.append("s1", user("more"));
      expect(await store.count("s1")).toBe(4);
    });

    it("close is idempotent, waits for pending writes, and every later call rejects with STORE_CLOSED", async () => {
      const store = await make();
      const pending = store.appendMany("s1", numbered(3));
      await Promise.all([store.close(), store.close()]);
      await pending;
      await store.close();
      const calls: Promise<unknown>[] = [
        store.open("s1"), store.append("s1", user("x")), store.appendMany("s1", []), store.read("s1"), store.count("s1"),
        store.replace("s1", []), store.clear("s1"), store.clearRun("s1", "r"), store.listSessions(), store.deleteSession("s1"),
        store.closeSession("s1"),
      ];
      for (const call of calls) await expectCode(call, "STORE_CLOSED");
    });

    it("durable stores: a new instance over the same storage sees the same history", async (context) => {
      const under = await harness.makeUnderTest();
      if (!under.reopen) return context.skip();
      await under.store.appendMany("s1", numbered(3));
      await under.store.append("s1", user("x", { runId: "r" }));
      await under.store.close();
      const second = await under.reopen();
      harness.track(second);
      expect(texts((await second.open("s1")).messages)).toEqual(["m0", "m1", "m2", "x"]);
      await second.clearRun("s1", "r");
      await second.append("s1", user("y"));
      await second.close();
      const third = await under.reopen();
      harness.track(third);
      expect(texts(await third.read("s1"))).toEqual(["m0", "m1", "m2", "y"]);
      expect((await third.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["s1", 4]]);
    });
  });
}
