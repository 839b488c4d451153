import { describe, expect, it } from "vitest";
import { failure, numbered, texts, user, type StoreHarness, type StoreSuiteSizes } from "./history-store-helpers.js";

/** Unicode, large messages, concurrent writers, call order. */
export function describeStoreStress(harness: StoreHarness, { writers, appendsPerWriter, largeBytes }: StoreSuiteSizes): void {
  const { make } = harness;
  describe("text and size", () => {
    const samples = [
      "emoji 😀👍🏽 family 👨‍👩‍👧‍👦 flag 🇫🇷",
      "CJK 漢字かなカナ한국어",
      "RTL עברית ‏mixed‎ العربية",
      "combining é vs é, Ångström",
      "separators \u2028 and \u2029 inside",
      'quotes " \\ backslash / slash, {"role":"system"}\n{"role":"user"}',
      "control \t tab \r cr \n lf \u001b esc \u007f del",
    ];

    it("round-trips Unicode exactly: emoji, CJK, RTL, combining marks, line separators, escapes", async () => {
      const store = await make();
      await store.appendMany("s1", samples.map((text, i) => ({ role: "user", content: text, name: `n${i}`, metadata: { id: `u${i}`, note: text } })));
      const back = await store.read("s1");
      expect(back.map((m) => m.content)).toEqual(samples);
      expect(back.map((m) => m.metadata?.note)).toEqual(samples);
      expect(await store.count("s1")).toBe(samples.length);
    });

    it.each([
      ["NUL", "before\u0000after"],
      ["a lone high surrogate", "broken \ud83d here"],
      ["a lone low surrogate", "broken \ude00 here"],
    ])("keeps %s exactly, or refuses it with INVALID_MESSAGE — never alters it", async (_label, text) => {
      const store = await make();
      const error = await failure(store.append("s1", user(text)));
      if (error) {
        expect(error.code).toBe("INVALID_MESSAGE");
        expect(await store.count("s1")).toBe(0);
      } else {
        expect((await store.read("s1"))[0]?.content).toBe(text);
      }
    });

    it(`stores a ${Math.round(largeBytes / 1024)} KiB message and the messages around it`, async () => {
      const store = await make();
      const unit = "0123456789abcdef漢😀\n";
      const big = unit.repeat(Math.ceil(largeBytes / Buffer.byteLength(unit)));
      await store.append("s1", user("before"));
      await store.append("s1", { role: "tool", content: big, tool_call_id: "c", metadata: { id: "big" } });
      await store.append("s1", user("after"));
      const back = await store.read("s1");
      expect(back).toHaveLength(3);
      expect(back[1]!.content === big).toBe(true);
      expect(texts(await store.read("s1", { offset: 2 }))).toEqual(["after"]);
    });
  });

  describe("concurrency", () => {
    it(`${writers} concurrent writers: nothing lost, duplicated or reordered per writer`, async () => {
      const store = await make();
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < appendsPerWriter; i++) await store.append("shared", user(`w${w}-${i}`, { writer: w, seq: i }));
        }),
      );
      const back = await store.read("shared");
      expect(back).toHaveLength(writers * appendsPerWriter);
      expect(new Set(back.map((m) => m.metadata?.id)).size).toBe(back.length);
      for (let w = 0; w < writers; w++) {
        const seqs = back.filter((m) => m.metadata?.writer === w).map((m) => m.metadata?.seq);
        expect(seqs).toEqual(Array.from({ length: appendsPerWriter }, (_, i) => i));
      }
    });

    it("calls not awaited take effect in call order (appends, appendMany, replace, clearRun)", async () => {
      const store = await make();
      const pending = [
        store.append("s1", user("a")),
        store.appendMany("s1", [user("b", { runId: "r" }), user("c")]),
        store.append("s1", user("d")),
        store.replace("s1", [user("e"), user("f", { runId: "r" })]),
        store.append("s1", user("g", { runId: "r" })),
        store.append("s1", user("h")),
        store.clearRun("s1", "r"),
        store.append("s1", user("i")),
      ];
      const counted = store.count("s1");
      await Promise.all(pending);
      expect(await counted).toBe(3);
      expect(texts(await store.read("s1"))).toEqual(["e", "h", "i"]);
    });

    it("sessions written at the same time do not mix", async () => {
      const store = await make();
      await Promise.all(["p", "q", "r"].map(async (id) => {
        for (let i = 0; i < 20; i++) await store.append(id, user(`${id}${i}`));
      }));
      for (const id of ["p", "q", "r"]) expect(texts(await store.read(id))).toEqual(texts(numbered(20, id)));
    });
  });

}
