import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { expectCode, numbered, texts, user, type StoreHarness } from "./history-store-helpers.js";

/** Append, read and paging, copies, replace/clear/clearRun, listSessions/deleteSession. */
export function describeStoreBasics(harness: StoreHarness): void {
  const { make } = harness;
  describe("append and read", () => {
    it("reads back what was appended, in order, equal, ids kept", async () => {
      const store = await make();
      for (const m of numbered(5)) await store.append("s1", m);
      const back = await store.read("s1");
      expect(back).toEqual(numbered(5));
      expect(back.map((m) => m.metadata?.id)).toEqual(["id-m0", "id-m1", "id-m2", "id-m3", "id-m4"]);
    });

    it("appendMany appends after earlier messages, in order; an empty list changes nothing", async () => {
      const store = await make();
      await store.append("s1", user("first"));
      await store.appendMany("s1", numbered(3));
      await store.appendMany("s1", []);
      expect(texts(await store.read("s1"))).toEqual(["first", "m0", "m1", "m2"]);
    });

    it("a session never written reads as empty, with count 0", async () => {
      const store = await make();
      expect(await store.read("nobody")).toEqual([]);
      expect(await store.count("nobody")).toBe(0);
    });

    it("pages with offset and limit; past the end is an empty page", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(25));
      const pages = [];
      for (let offset = 0; offset <= 30; offset += 10) pages.push(texts(await store.read("s1", { offset, limit: 10 })));
      expect(pages.map((p) => p.length)).toEqual([10, 10, 5, 0]);
      expect(pages.flat()).toEqual(texts(numbered(25)));
      expect(texts(await store.read("s1", { offset: 23 }))).toEqual(["m23", "m24"]);
      expect(texts(await store.read("s1", { limit: 2 }))).toEqual(["m0", "m1"]);
      expect(await store.read("s1", { limit: 0 })).toEqual([]);
      expect(await store.read("s1", { offset: 1000 })).toEqual([]);
      expect(await store.read("s1", {})).toHaveLength(25);
    });

    it.each([
      ["negative offset", { offset: -1 }],
      ["fractional offset", { offset: 1.5 }],
      ["NaN offset", { offset: Number.NaN }],
      ["string offset", { offset: "2" }],
      ["negative limit", { limit: -1 }],
      ["infinite limit", { limit: Number.POSITIVE_INFINITY }],
      ["null options", null],
    ])("rejects bad paging (%s) with INVALID_ARGUMENT", async (_label, paging) => {
      const store = await make();
      await store.append("s1", user("a"));
      await expectCode(store.read("s1", paging as never), "INVALID_ARGUMENT");
    });

    it("count follows appends, replace and clear", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(7));
      expect(await store.count("s1")).toBe(7);
      await store.replace("s1", numbered(2));
      expect(await store.count("s1")).toBe(2);
      await store.clear("s1");
      expect(await store.count("s1")).toBe(0);
    });

    it("keeps every kind of message exactly (tool calls in both styles, blocks, null content, metadata)", async () => {
      const store = await make();
      const messages: Message[] = [
        { role: "system", content: "be brief", metadata: { id: "s", critical: true } },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] },
        { role: "tool", content: "a\nb", tool_call_id: "c1", name: "ls" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig" }, { type: "tool_use", id: "t1", name: "read", input: { file: "x", deep: { n: [1, 2, null] } } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "ok" }], is_error: false }] },
        { role: "developer", content: "rules", metadata: { id: "d", runId: "r1", summary: { covers: ["a", "b"], strategy: "s" }, custom: { x: 1 } } },
      ];
      await store.appendMany("s1", messages);
      expect(await store.read("s1")).toEqual(messages);
    });

    it("keeps sessions apart", async () => {
      const store = await make();
      await store.append("a", user("for-a"));
      await store.append("b", user("for-b"));
      expect(texts(await store.read("a"))).toEqual(["for-a"]);
      expect(texts(await store.read("b"))).toEqual(["for-b"]);
    });
  });

  describe("copies", () => {
    it("a message changed after append, or after read, changes nothing stored", async () => {
      const store = await make();
      const original = user("keep", { tags: ["x"] });
      await store.append("s1", original);
      original.content = "changed";
      (original.metadata!.tags as string[]).push("y");
      const [first] = await store.read("s1");
      first!.content = "changed too";
      first!.metadata!.id = "other";
      const again = await store.read("s1");
      expect(again).toEqual([user("keep", { tags: ["x"] })]);
      expect(again[0]).not.toBe(first);
    });

    it("arrays passed to appendMany and replace, and their messages, are copied", async () => {
      const store = await make();
      const batch = numbered(2);
      await store.appendMany("s1", batch);
      batch.push(user("late"));
      batch[0]!.content = "changed";
      const replacement = numbered(1, "r");
      await store.replace("s2", replacement);
      replacement[0]!.content = "changed";
      expect(texts(await store.read("s1"))).toEqual(["m0", "m1"]);
      expect(texts(await store.read("s2"))).toEqual(["r0"]);
    });

    it("open() returns the history as copies the caller owns", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(3));
      const opened = await store.open("s1");
      expect(opened.messages).toEqual(numbered(3));
      expect(opened.recovered).toBeUndefined();
      opened.messages[0]!.content = "mine";
      expect(texts(await store.read("s1"))).toEqual(["m0", "m1", "m2"]);
    });
  });

  describe("replace, clear, clearRun", () => {
    it("replace swaps the whole history; later appends follow the new one", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(5));
      await store.replace("s1", numbered(2, "new"));
      await store.append("s1", user("after"));
      expect(texts(await store.read("s1"))).toEqual(["new0", "new1", "after"]);
    });

    it("replace with one bad message changes nothing", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(3));
      await expectCode(store.replace("s1", [user("ok"), { role: "wizard", content: "x" } as never]), "INVALID_MESSAGE");
      expect(texts(await store.read("s1"))).toEqual(["m0", "m1", "m2"]);
    });

    it("clear empties the session; it can be written again", async () => {
      const store = await make();
      await store.appendMany("s1", numbered(3));
      await store.clear("s1");
      expect(await store.read("s1")).toEqual([]);
      await store.append("s1", user("again"));
      expect(texts(await store.read("s1"))).toEqual(["again"]);
    });

    it("clearRun drops that run's messages only, keeping the others' order", async () => {
      const store = await make();
      const history = [user("a"), user("b", { runId: "r1" }), user("c", { runId: "r2" }), user("d", { runId: "r1" }), user("e")];
      await store.appendMany("s1", history);
      await store.append("other", user("x", { runId: "r1" }));
      await store.clearRun("s1", "r1");
      expect(texts(await store.read("s1"))).toEqual(["a", "c", "e"]);
      await store.clearRun("s1", "no-such-run");
      expect(texts(await store.read("s1"))).toEqual(["a", "c", "e"]);
      expect(texts(await store.read("other"))).toEqual(["x"]);
      await store.append("s1", user("f"));
      expect(await store.count("s1")).toBe(4);
    });

    it.each([["empty", ""], ["number", 7], ["undefined", undefined]])("clearRun rejects a %s run id with INVALID_ARGUMENT", async (_l, runId) => {
      const store = await make();
      await expectCode(store.clearRun("s1", runId as never), "INVALID_ARGUMENT");
    });
  });

  describe("listSessions and deleteSession", () => {
    it("lists every session holding messages, sorted by id, with its count", async () => {
      const store = await make();
      await store.appendMany("beta", numbered(3));
      await store.appendMany("alpha", numbered(2));
      const listed = (await store.listSessions()).filter((s) => s.count > 0);
      expect(listed.map((s) => [s.sessionId, s.count])).toEqual([["alpha", 2], ["beta", 3]]);
      for (const s of listed) {
        if (s.bytes !== undefined) expect(s.bytes).toBeGreaterThan(0);
        if (s.updatedAt !== undefined) expect(Number.isNaN(Date.parse(s.updatedAt))).toBe(false);
      }
    });

    it("deleteSession removes one session; unknown sessions are a no-op; the id can be reused", async () => {
      const store = await make();
      await store.appendMany("gone", numbered(2));
      await store.appendMany("kept", numbered(1));
      await store.deleteSession("gone");
      await store.deleteSession("never-existed");
      expect(await store.read("gone")).toEqual([]);
      expect(await store.count("gone")).toBe(0);
      expect((await store.listSessions()).map((s) => s.sessionId)).not.toContain("gone");
      expect(texts(await store.read("kept"))).toEqual(["m0"]);
      await store.append("gone", user("back"));
      expect(texts(await store.read("gone"))).toEqual(["back"]);
    });
  });

}
