import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { expectCode, user, type StoreHarness } from "./history-store-helpers.js";

/** Bad session ids, non-messages, ephemeral messages, bad arguments: typed errors, nothing stored. */
export function describeStoreRefusals(harness: StoreHarness): void {
  const { make } = harness;
  describe("refusals", () => {
    const badIds: [string, unknown][] = [
      ["empty", ""],
      ["parent traversal", "../escape"],
      ["separator", "a/b"],
      ["backslash", "a\\b"],
      ["leading dot", ".hidden"],
      ["dot-dot", ".."],
      ["embedded ..", "a..b"],
      ["too long", "x".repeat(129)],
      ["space", "a b"],
      ["non-ASCII", "sessión"],
      ["NUL", "a\0b"],
      ["number", 42],
      ["null", null],
    ];
    const calls: [string, (s: HistoryStore, id: string) => Promise<unknown>][] = [
      ["open", (s, id) => s.open(id)],
      ["append", (s, id) => s.append(id, user("x"))],
      ["appendMany", (s, id) => s.appendMany(id, [user("x")])],
      ["read", (s, id) => s.read(id)],
      ["count", (s, id) => s.count(id)],
      ["replace", (s, id) => s.replace(id, [])],
      ["clear", (s, id) => s.clear(id)],
      ["clearRun", (s, id) => s.clearRun(id, "r")],
      ["deleteSession", (s, id) => s.deleteSession(id)],
      ["closeSession", (s, id) => s.closeSession(id)],
    ];

    it.each(badIds)("rejects a bad session id (%s) from every method with INVALID_SESSION_ID", async (_label, id) => {
      const store = await make();
      for (const [, call] of calls) await expectCode(call(store, id as string), "INVALID_SESSION_ID");
      expect((await store.listSessions()).filter((s) => s.count > 0)).toEqual([]);
    });

    it("accepts ids at the edges of the rules", async () => {
      const store = await make();
      for (const id of ["a", "x".repeat(128), "A.b-c_D9", "a.b", "0", "_-"]) {
        await store.append(id, user(id.slice(0, 8)));
        expect(await store.count(id)).toBe(1);
      }
    });

    it.each([
      ["null", null],
      ["a string", "hello"],
      ["an array", []],
      ["an unknown role", { role: "wizard", content: "x" }],
      ["no role", { content: "x" }],
      ["metadata not an object", { role: "user", content: "x", metadata: "m" }],
      ["a BigInt", { role: "user", content: "x", metadata: { n: 1n } }],
    ])("refuses %s with INVALID_MESSAGE and stores nothing", async (_label, bad) => {
      const store = await make();
      await expectCode(store.append("s1", bad as never), "INVALID_MESSAGE");
      await expectCode(store.appendMany("s1", [user("ok"), bad as never]), "INVALID_MESSAGE");
      expect(await store.count("s1")).toBe(0);
    });

    it("refuses a cyclic message with INVALID_MESSAGE", async () => {
      const store = await make();
      const cyclic = user("c") as Message & { self?: unknown };
      cyclic.self = cyclic;
      await expectCode(store.append("s1", cyclic), "INVALID_MESSAGE");
      expect(await store.count("s1")).toBe(0);
    });

    it("refuses ephemeral messages: they are never persisted", async () => {
      const store = await make();
      await expectCode(store.append("s1", user("temp", { ephemeral: true })), "INVALID_MESSAGE");
      await expectCode(store.replace("s1", [user("ok"), user("temp", { ephemeral: true })]), "INVALID_MESSAGE");
      expect(await store.count("s1")).toBe(0);
      await store.append("s1", user("fine", { ephemeral: false }));
      expect(await store.count("s1")).toBe(1);
    });

    it("refuses an appendMany/replace argument that is not an array with INVALID_ARGUMENT", async () => {
      const store = await make();
      await expectCode(store.appendMany("s1", user("x") as never), "INVALID_ARGUMENT");
      await expectCode(store.replace("s1", "nope" as never), "INVALID_ARGUMENT");
    });
  });

}
