import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../generated/message.js";
import type { HistoryStore } from "../history-store.js";

/** What a factory hands the suite: a store over EMPTY storage (a fresh folder, schema, key prefix). */
export interface StoreUnderTest {
  store: HistoryStore;
  /**
   * Durable stores: a new store instance over the same storage. The suite closes the previous
   * instance first (single-writer stores may lock sessions). Leave it out for memory-only stores.
   */
  reopen?(): Promise<HistoryStore>;
  /** Removes the storage (the suite has closed every store it got by then). */
  cleanup?(): Promise<void>;
}

export interface HistoryStoreContractOptions {
  /** Concurrent writers in the concurrency test (default 8) and appends each (default 40). */
  writers?: number;
  appendsPerWriter?: number;
  /** Size of the large-message test (default 1 MiB). */
  largeMessageBytes?: number;
}

type Failure = { code?: string; message: string };
const failure = (p: Promise<unknown>): Promise<Failure | undefined> =>
  p.then(() => undefined, (e: unknown) => e as Failure);

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const error = await failure(p);
  expect(error, `expected the call to reject with ${code}`).toBeDefined();
  expect(error?.code, error?.message).toBe(code);
}

const user = (text: string, metadata: Record<string, unknown> = {}): Message => ({
  role: "user",
  content: text,
  metadata: { id: `id-${text}`, timestamp: "2025-01-01T00:00:00.000Z", ...metadata },
});

const numbered = (n: number, prefix = "m"): Message[] => Array.from({ length: n }, (_, i) => user(`${prefix}${i}`));
const texts = (messages: Message[]) => messages.map((m) => m.content);

/**
 * The conformance suite of the HistoryStore contract (contracts/history-store.ts). Every store
 * runs it — memory, JSONL, PostgreSQL, Redis, third parties':
 *
 * ```ts
 * describeHistoryStoreContract("jsonl", async () => {
 *   const dir = await mkdtemp(join(tmpdir(), "store-"));
 *   return {
 *     store: new JsonlStore({ storagePath: dir }),
 *     reopen: async () => new JsonlStore({ storagePath: dir }),
 *     cleanup: () => rm(dir, { recursive: true, force: true }),
 *   };
 * });
 * ```
 */
export function describeHistoryStoreContract(
  name: string,
  factory: () => Promise<StoreUnderTest>,
  options: HistoryStoreContractOptions = {},
): void {
  const writers = options.writers ?? 8;
  const appendsPerWriter = options.appendsPerWriter ?? 40;
  const largeBytes = options.largeMessageBytes ?? 1024 * 1024;

  describe(`HistoryStore contract: ${name}`, () => {
    let made: StoreUnderTest[] = [];
    let stores: HistoryStore[] = [];
    const make = async (): Promise<HistoryStore> => {
      const under = await factory();
      made.push(under);
      stores.push(under.store);
      return under.store;
    };
    afterEach(async () => {
      await Promise.allSettled(stores.map((s) => s.close()));
      await Promise.allSettled(made.map((m) => m.cleanup?.()));
      made = [];
      stores = [];
    });

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
        const under = await factory();
        made.push(under);
        stores.push(under.store);
        if (!under.reopen) return context.skip();
        await under.store.appendMany("s1", numbered(3));
        await under.store.append("s1", user("x", { runId: "r" }));
        await under.store.close();
        const second = await under.reopen();
        stores.push(second);
        expect(texts((await second.open("s1")).messages)).toEqual(["m0", "m1", "m2", "x"]);
        await second.clearRun("s1", "r");
        await second.append("s1", user("y"));
        await second.close();
        const third = await under.reopen();
        stores.push(third);
        expect(texts(await third.read("s1"))).toEqual(["m0", "m1", "m2", "y"]);
        expect((await third.listSessions()).map((s) => [s.sessionId, s.count])).toEqual([["s1", 4]]);
      });
    });
  });
}
