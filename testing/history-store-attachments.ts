import { describe, expect, it, type TestContext } from "vitest";
import type { HistoryStore, SessionAttachments } from "@amplifier-ts/contracts";
import { hasSessionAttachments } from "@amplifier-ts/contracts";
import { expectCode, numbered, texts, user, type StoreHarness } from "./history-store-helpers.js";

const ALPHA = { agentId: "alpha" };
const BETA = { agentId: "beta" };

type AttachmentStore = HistoryStore & SessionAttachments;

/**
 * Session attachments (SessionAttachments, contracts/history-store.ts): small documents keyed by
 * (agent, session, name), beside the history and never part of it, deleted with the session.
 *
 * `required`: true — the store must have the capability (a test fails if it has not); false —
 * the part is skipped; undefined — run when the store has it, skipped otherwise.
 */
export function describeStoreAttachments(harness: StoreHarness, required: boolean | undefined): void {
  async function make(context: TestContext): Promise<AttachmentStore> {
    const store = await harness.make();
    if (required === false) context.skip();
    if (hasSessionAttachments(store)) return store;
    if (required === true) expect.fail(`the ${store.kind} store has no session attachments (readAttachment, writeAttachment)`);
    context.skip();
  }

  describe("session attachments", () => {
    it("write, read back exactly, overwrite; a name never written reads undefined", async (context) => {
      const store = await make(context);
      expect(await store.readAttachment("s1", "counts")).toBeUndefined();
      const text = `${JSON.stringify({ version: 1, caches: { "o200k_base|x": [["h", 12]] }, note: "é ✓ 𝄞 \"quoted\"\n\ttab" })}\n`;
      await store.writeAttachment("s1", "counts", text);
      expect(await store.readAttachment("s1", "counts")).toBe(text);
      await store.writeAttachment("s1", "counts", "second");
      expect(await store.readAttachment("s1", "counts")).toBe("second");
      await store.writeAttachment("s1", "counts", "");
      expect(await store.readAttachment("s1", "counts")).toBe("");
      const large = "x".repeat(1024 * 1024);
      await store.writeAttachment("s1", "big_one-2", large);
      expect(await store.readAttachment("s1", "big_one-2")).toBe(large);
    });

    it("unawaited writes of one attachment take effect in call order: the last call's text stays", async (context) => {
      const store = await make(context);
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.writeAttachment("s1", "calibration", `v${i}`)));
      expect(await store.readAttachment("s1", "calibration")).toBe("v9");
    });

    it("isolation: agents, sessions (also one whose id extends another's) and names each hold their own", async (context) => {
      const store = await make(context);
      await store.writeAttachment("s", "counts", "default s");
      await store.writeAttachment("s", "counts", "alpha s", ALPHA);
      await store.writeAttachment("s.counts", "counts", "default s.counts");
      await store.writeAttachment("s", "calibration", "default s calibration");
      await store.writeAttachment("s.x", "y", "default s.x y");
      expect(await store.readAttachment("s", "counts")).toBe("default s");
      expect(await store.readAttachment("s", "counts", { agentId: "default" })).toBe("default s");
      expect(await store.readAttachment("s", "counts", ALPHA)).toBe("alpha s");
      expect(await store.readAttachment("s", "counts", BETA)).toBeUndefined();
      expect(await store.readAttachment("s.counts", "counts")).toBe("default s.counts");
      expect(await store.readAttachment("s", "calibration")).toBe("default s calibration");
      expect(await store.readAttachment("s", "calibration", ALPHA)).toBeUndefined();
      expect(await store.readAttachment("s.x", "y")).toBe("default s.x y");
      expect(await store.readAttachment("s", "x")).toBeUndefined();
    });

    it("attachments are no messages: read, count and listSessions do not see them", async (context) => {
      const store = await make(context);
      await store.writeAttachment("only-doc", "counts", "{}");
      await store.append("with-history", user("m0"));
      await store.writeAttachment("with-history", "counts", "{}");
      expect(await store.read("only-doc")).toEqual([]);
      expect(await store.count("only-doc")).toBe(0);
      expect(texts(await store.read("with-history"))).toEqual(["m0"]);
      const listed = (await store.listSessions()).filter((s) => s.count > 0);
      expect(listed.map((s) => [s.sessionId, s.count])).toEqual([["with-history", 1]]);
    });

    it("deleteSession deletes the session's attachments with it, and no other agent's or session's", async (context) => {
      const store = await make(context);
      await store.appendMany("s1", numbered(3));
      await store.writeAttachment("s1", "counts", "d1");
      await store.writeAttachment("s1", "calibration", "d1c");
      await store.writeAttachment("s1", "counts", "a1", ALPHA);
      await store.writeAttachment("s2", "counts", "d2");
      await store.writeAttachment("doc-only", "counts", "d3");
      await store.deleteSession("s1");
      await store.deleteSession("doc-only");
      expect(await store.readAttachment("s1", "counts")).toBeUndefined();
      expect(await store.readAttachment("s1", "calibration")).toBeUndefined();
      expect(await store.readAttachment("doc-only", "counts")).toBeUndefined();
      expect(await store.readAttachment("s1", "counts", ALPHA)).toBe("a1");
      expect(await store.readAttachment("s2", "counts")).toBe("d2");
      // A new session of the same id starts without them.
      await store.append("s1", user("again"));
      expect(await store.readAttachment("s1", "counts")).toBeUndefined();
    });

    it("replace, clear and clearRun keep the session's attachments", async (context) => {
      const store = await make(context);
      await store.appendMany("s1", [user("a", { runId: "r1" }), user("b")]);
      await store.writeAttachment("s1", "counts", "kept");
      await store.clearRun("s1", "r1");
      await store.replace("s1", [user("c")]);
      await store.clear("s1");
      expect(await store.readAttachment("s1", "counts")).toBe("kept");
    });

    it("durable stores: attachments are read back by a new instance over the same storage", async (context) => {
      const under = await harness.makeUnderTest();
      if (!under.reopen || !hasSessionAttachments(under.store)) return context.skip();
      await under.store.append("s1", user("m"), ALPHA);
      await under.store.writeAttachment("s1", "counts", "durable", ALPHA);
      await under.store.close();
      const second = await under.reopen();
      harness.track(second);
      if (!hasSessionAttachments(second)) return expect.fail("the reopened store lost the capability");
      expect(await second.readAttachment("s1", "counts", ALPHA)).toBe("durable");
      expect(await second.readAttachment("s1", "counts")).toBeUndefined();
    });

    it.for([
      ["an empty name", ""],
      ["a dot", "counts.json"],
      ["a path", "../escape"],
      ["a separator", "a/b"],
      ["a backslash", "a\\b"],
      ["'..'", ".."],
      ["a colon", "a:b"],
      ["a brace", "a}b"],
      ["a space", "a b"],
      ["65 characters", "n".repeat(65)],
      ["a number", 7],
      ["null", null],
    ] as [string, unknown][])("refuses %s as a name with INVALID_ARGUMENT (path \"name\"), reading and writing, storing nothing", async ([, name], context) => {
      const store = await make(context);
      const bad = name as string;
      const calls = [() => store.writeAttachment("s1", bad, "text"), () => store.readAttachment("s1", bad), () => store.writeAttachment("s1", bad, "text", ALPHA)];
      for (const call of calls) {
        const error = (await call().then(() => undefined, (e: unknown) => e)) as { code?: string; path?: string } | undefined;
        expect(error?.code).toBe("INVALID_ARGUMENT");
        expect(error?.path).toBe("name");
      }
      expect(await store.count("s1")).toBe(0);
    });

    it.for([
      ["a number", 42],
      ["undefined", undefined],
      ["NUL", "a\u0000b"],
      ["a lone surrogate", "a\ud800b"],
    ] as [string, unknown][])("refuses %s as text with INVALID_ARGUMENT and keeps the old text", async ([, text], context) => {
      const store = await make(context);
      await store.writeAttachment("s1", "counts", "old");
      await expectCode(store.writeAttachment("s1", "counts", text as string), "INVALID_ARGUMENT");
      expect(await store.readAttachment("s1", "counts")).toBe("old");
    });

    it("bad session and agent ids are refused as by every method; a closed store refuses with STORE_CLOSED", async (context) => {
      const store = await make(context);
      await expectCode(store.writeAttachment("../s", "counts", "x"), "INVALID_SESSION_ID");
      await expectCode(store.readAttachment(".hidden", "counts"), "INVALID_SESSION_ID");
      await expectCode(store.writeAttachment("s1", "counts", "x", { agentId: "a/b" }), "INVALID_AGENT_ID");
      await expectCode(store.readAttachment("s1", "counts", { agentId: "" }), "INVALID_AGENT_ID");
      await store.close();
      await expectCode(store.readAttachment("s1", "counts"), "STORE_CLOSED");
      await expectCode(store.writeAttachment("s1", "counts", "x"), "STORE_CLOSED");
    });
  });
}
