import type { AgentInputItem } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { createError, isAmplifierError, type HistoryStore, type Message } from "@amplifier-ts/contracts";
import { MemoryStore } from "@amplifier-ts/stores";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { AmplifierSession, ITEM_KEY } from "../index.js";

/** The session's contract, example by example, on the in-memory store (the 300-turn test runs the real stores). */

const user = (text: string): AgentInputItem => ({ role: "user", content: text });
const answer = (text: string, id = `msg_${text.length}`): AgentInputItem => ({ id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const reasoning = (id: string, text: string): AgentInputItem => ({ type: "reasoning", id, content: [{ type: "input_text", text }], providerData: { id, type: "reasoning" } });
const call = (callId: string, args = "{}"): AgentInputItem => ({ type: "function_call", callId, name: "lookup", status: "completed", arguments: args });
const result = (callId: string, text: string): AgentInputItem => ({ type: "function_call_result", callId, name: "lookup", status: "completed", output: { type: "text", text } });

/** One turn: a question, reasoning, `calls` calls, their results (each `size` words), the answer. */
function turn(k: number, calls = 1, size = 40): AgentInputItem[] {
  const ids = Array.from({ length: calls }, (_, c) => `call_${k}_${c}`);
  return [user(`question ${k}`), reasoning(`rs_${k}`, `thinking about ${k}`), ...ids.map((id) => call(id, `{"q":${k}}`)), ...ids.map((id) => result(id, `result ${k} `.repeat(size))), answer(`answer ${k}`, `msg_${k}`)];
}

const sessionOn = (store: HistoryStore, extra: Partial<ConstructorParameters<typeof AmplifierSession>[0]> = {}) =>
  new AmplifierSession({ sessionId: "s1", store, budget: 100_000, turnReserve: 0, ...extra });

describe("AmplifierSession keeps items exactly", () => {
  it("returns every kind of item as it was given, whole history under the budget", async () => {
    const items: AgentInputItem[] = [
      { role: "system", content: "a note" },
      { role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image: "https://example.com/a.png", detail: "low" }] },
      reasoning("rs_1", "hmm"),
      answer("checking", "msg_1"),
      call("c1", '{"a":1}'),
      { type: "computer_call", callId: "c2", status: "completed", action: { type: "screenshot" } } as AgentInputItem,
      result("c1", "one"),
      { type: "computer_call_result", callId: "c2", output: { type: "computer_screenshot", data: "data:image/png;base64,AAAA" } } as AgentInputItem,
      { type: "hosted_tool_call", id: "ws_1", name: "web_search_call", status: "completed", providerData: { query: "x" } } as AgentInputItem,
      answer("done", "msg_2"),
    ];
    const store = new MemoryStore();
    const session = sessionOn(store);
    await session.addItems(items);
    expect(await session.getItems()).toEqual(items);
    expect(await session.getStoredItems()).toEqual(items);
    expect(await session.getSessionId()).toBe("s1");
    // Each item is one stored message, readable as a Message, holding the item.
    const stored = await store.read("s1");
    expect(stored.map((m) => m.role)).toEqual(["system", "user", "assistant", "assistant", "assistant", "assistant", "tool", "tool", "assistant", "assistant"]);
    expect(stored.map((m) => m.metadata?.[ITEM_KEY])).toEqual(items);
    expect(stored[4]!.tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"a":1}' } }]);
  });

  it("hands out copies: changing a returned item changes nothing stored", async () => {
    const session = sessionOn(new MemoryStore());
    await session.addItems([user("hello")]);
    const [first] = await session.getItems();
    (first as { content: string }).content = "changed";
    expect(await session.getItems()).toEqual([user("hello")]);
  });

  it("getItems(limit) and getStoredItems(limit) return the newest `limit` items, in order", async () => {
    const session = sessionOn(new MemoryStore());
    await session.addItems([...turn(0), ...turn(1)]);
    // turn(1): question, reasoning, call, result, answer. A limit that falls on the result or on the
    // call (after its reasoning) starts at the next message: the answer.
    expect(await session.getItems(2)).toEqual(turn(1).slice(-1));
    expect(await session.getItems(3)).toEqual(turn(1).slice(-1));
    expect(await session.getItems(turn(1).length - 1)).toEqual(turn(1).slice(1));
    expect(await session.getItems(turn(1).length)).toEqual(turn(1));
    expect(await session.getStoredItems(3)).toEqual(turn(1).slice(-3));
    expect(await session.getItems(0)).toEqual([]);
    await expect(session.getItems(-1)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "limit" } });
  });

  it("popItem removes and returns the newest item; clearSession empties the session", async () => {
    const store = new MemoryStore();
    const session = sessionOn(store);
    await session.addItems(turn(0));
    expect(await session.popItem()).toEqual(answer("answer 0", "msg_0"));
    expect(await session.getStoredItems()).toEqual(turn(0).slice(0, -1));
    expect(await store.count("s1")).toBe(turn(0).length - 1);
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    expect(await store.count("s1")).toBe(0);
  });

  it("replaceHistoryWithCompaction makes the history the given items in one write; the window starts at the latest compaction item, kept first", async () => {
    const store = new MemoryStore();
    const session = sessionOn(store);
    await session.addItems([...turn(0), ...turn(1)]);
    const compacted: AgentInputItem[] = [{ type: "compaction", encrypted_content: "opaque" } as AgentInputItem, ...turn(1)];
    await session.replaceHistoryWithCompaction(compacted);
    expect(await session.getStoredItems()).toEqual(compacted);
    expect(await store.count("s1")).toBe(compacted.length);
    await session.addItems(turn(2));
    expect(await sessionOn(store).getItems()).toEqual([...compacted, ...turn(2)]);
    // A later compaction item: the window starts at it, as the Runner's input does; the history keeps all.
    const later = { type: "compaction", encrypted_content: "opaque 2" } as AgentInputItem;
    await session.addItems([later, ...turn(3)]);
    expect(await session.getItems()).toEqual([later, ...turn(3)]);
    expect(await session.getStoredItems()).toEqual([...compacted, ...turn(2), later, ...turn(3)]);
  });

  it("keeps call order when calls are not awaited", async () => {
    const session = sessionOn(new MemoryStore());
    await Promise.all([0, 1, 2, 3].map((k) => session.addItems(turn(k))));
    expect(await session.getStoredItems()).toEqual([0, 1, 2, 3].flatMap((k) => turn(k)));
  });
});

describe("AmplifierSession fits the window on read", () => {
  it("drops whole old turns, never a call without its results nor reasoning without its answer, and stays under the budget", async () => {
    for (const budget of [1_500, 2_500, 4_000]) {
      const session = sessionOn(new MemoryStore(), { budget });
      for (let k = 0; k < 40; k++) await session.addItems(turn(k, 1 + (k % 3)));
      const window = await session.getItems();
      const report = await session.windowReport();
      expect(report.tokens, `budget ${budget}`).toBeLessThanOrEqual(session.historyBudget);
      expect(report.budget).toBe(session.historyBudget);
      expect(window.length).toBeLessThan(40 * 5);
      expect(window[0]).toMatchObject({ role: "user" });
      const all = await session.getStoredItems();
      // The window is the stored items from a user turn on: a suffix of whole turns.
      expect(window).toEqual(all.slice(all.length - window.length));
      const calls = window.filter((i) => i.type === "function_call").map((i) => (i as { callId: string }).callId);
      const results = window.filter((i) => i.type === "function_call_result").map((i) => (i as { callId: string }).callId);
      expect(results.sort()).toEqual(calls.sort());
      window.forEach((item, i) => {
        if (item.type === "reasoning") expect(window[i + 1]?.type, "reasoning precedes its answer").toMatch(/function_call|message/);
      });
    }
  });

  it("counts older answers' reasoning, which it sends: the items returned are under the budget counted on their own", async () => {
    // Long reasoning in every answer: a window counted without older turns' thinking (the engine's
    // drop-older default) but sent with it, as the items are, would overflow.
    const long = (k: number): AgentInputItem[] => turn(k).map((item) => (item.type === "reasoning" ? reasoning(`rs_${k}`, `step ${k} `.repeat(300)) : item));
    const budget = 6_000;
    const session = sessionOn(new MemoryStore(), { budget });
    for (let k = 0; k < 30; k++) await session.addItems(long(k));
    const window = await session.getItems();
    const all = await session.getStoredItems();
    expect(window).toEqual(all.slice(all.length - window.length));
    expect(window.filter((i) => i.type === "reasoning").length).toBeGreaterThan(1);
    // Counted independently: the window's report plus the older answers' reasoning text, which a
    // window that dropped their thinking from its count would not include.
    const report = await session.windowReport();
    const counter = getTokenCounter("gpt-4o");
    const lastTurn = window.map((i) => (i as { role?: string }).role).lastIndexOf("user");
    const olderThinking = window.slice(0, lastTurn).filter((i) => i.type === "reasoning").reduce((sum, i) => sum + counter.countText((i as { content: { text: string }[] }).content[0]!.text), 0);
    expect(report.window.thinkingDropped.tokens).toBe(0);
    expect(report.tokens).toBeGreaterThan(olderThinking);
    expect(report.tokens).toBeLessThanOrEqual(session.historyBudget);
  });

  it("keeps the cut between reads: consecutive windows share their prefix until the next cut", async () => {
    const session = sessionOn(new MemoryStore(), { budget: 3_000 });
    let previous: AgentInputItem[] = [];
    let kept = 0;
    let moved = 0;
    for (let k = 0; k < 60; k++) {
      await session.addItems(turn(k));
      const window = await session.getItems();
      if (previous.length > 0) {
        if (JSON.stringify(window.slice(0, previous.length)) === JSON.stringify(previous)) kept++;
        else moved++;
      }
      previous = window;
    }
    expect(moved).toBeGreaterThan(0);
    expect(kept / (kept + moved)).toBeGreaterThan(0.75);
  });

  it("cuts a result too long for any window down (head and tail kept), in the window only", async () => {
    const session = sessionOn(new MemoryStore(), { budget: 3_000 });
    const huge = turn(0, 1, 5_000);
    await session.addItems(huge);
    const window = await session.getItems();
    expect(window.map((i) => i.type ?? "message")).toEqual(huge.map((i) => i.type ?? "message"));
    const cut = window.find((i) => i.type === "function_call_result") as { output: unknown };
    expect(typeof cut.output).toBe("string");
    expect((cut.output as string).length).toBeLessThan(JSON.stringify(huge[3]).length / 4);
    expect(cut.output as string).toMatch(/^result 0 /);
    expect((await session.windowReport()).truncated).toBe(1);
    expect(await session.getStoredItems()).toEqual(huge);
  });

  it("counts the instructions and the tools it is given against the budget", async () => {
    const bare = sessionOn(new MemoryStore(), { budget: 5_000, turnReserve: 1_000 });
    const loaded = sessionOn(new MemoryStore(), {
      budget: 5_000,
      turnReserve: 1_000,
      instructions: "Follow the rules. ".repeat(100),
      tools: [{ type: "function", name: "lookup", description: "Looks it up. ".repeat(50), parameters: { type: "object", properties: {} } }],
    });
    expect(loaded.historyBudget).toBeLessThan(bare.historyBudget);
    for (const session of [bare, loaded]) for (let k = 0; k < 20; k++) await session.addItems(turn(k));
    expect((await loaded.getItems()).length).toBeLessThan((await bare.getItems()).length);
  });
});

describe("AmplifierSession appends idempotently", () => {
  it("a retry after STORAGE_WRITE_UNCERTAIN (the write was applied) stores the items once", async () => {
    const store = new FlakyStore("uncertain-after-write");
    const session = sessionOn(store);
    await session.addItems(turn(0));
    store.failNext = true;
    const error = await session.addItems(turn(1)).catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORAGE_WRITE_UNCERTAIN")).toBe(true);
    await session.addItems(turn(1)); // the retry
    expect(await session.getStoredItems()).toEqual([...turn(0), ...turn(1)]);
    expect(await store.count("s1")).toBe(2 * turn(0).length);
  });

  it("after an uncertain append, the next different call first completes it (once), then appends its own", async () => {
    const store = new FlakyStore("uncertain-after-write");
    const session = sessionOn(store);
    store.failNext = true;
    await expect(session.addItems(turn(0))).rejects.toMatchObject({ code: "STORAGE_WRITE_UNCERTAIN" });
    await session.addItems(turn(1));
    expect(await session.getStoredItems()).toEqual([...turn(0), ...turn(1)]);
    expect(await store.count("s1")).toBe(2 * turn(0).length);
  });

  it("a retry after STORAGE_WRITE_FAILED (nothing stored) stores the items once", async () => {
    const store = new FlakyStore("failed-before-write");
    const session = sessionOn(store);
    store.failNext = true;
    await expect(session.addItems(turn(0))).rejects.toMatchObject({ code: "STORAGE_WRITE_FAILED" });
    expect(await session.getStoredItems()).toEqual([]);
    await session.addItems(turn(0));
    expect(await store.count("s1")).toBe(turn(0).length);
  });

  it("the same item added again in a later call is a new item (not a retry)", async () => {
    const session = sessionOn(new MemoryStore());
    await session.addItems([user("ok")]);
    await session.addItems([user("ok")]);
    expect(await session.getStoredItems()).toEqual([user("ok"), user("ok")]);
  });
});

describe("AmplifierSession errors", () => {
  it("refuses items it cannot keep exactly, naming the item and the field", async () => {
    const session = sessionOn(new MemoryStore());
    await expect(session.addItems("nope" as never)).rejects.toMatchObject({ code: "OPENAI_AGENTS/INVALID_ITEM", details: { path: "items" } });
    await expect(session.addItems([42 as never])).rejects.toMatchObject({ code: "OPENAI_AGENTS/INVALID_ITEM", details: { path: "items[0]" } });
    await expect(session.addItems([{ content: "no role" } as never])).rejects.toMatchObject({ code: "OPENAI_AGENTS/INVALID_ITEM" });
    await expect(session.addItems([user("a"), { role: "user", content: [{ type: "input_image", image: new Uint8Array([1]) }] } as never])).rejects.toMatchObject({
      code: "OPENAI_AGENTS/INVALID_ITEM",
      details: { path: "items[1].content[0].image", index: 1 },
    });
    await expect(session.addItems([{ type: "function_call", callId: "c", name: "f", arguments: "{}", n: Number.NaN } as never])).rejects.toMatchObject({ details: { path: "items[0].n" } });
    expect(await session.getStoredItems()).toEqual([]);
  });

  it("bad options are INVALID_ARGUMENT naming the option", () => {
    const store = new MemoryStore();
    expect(() => new AmplifierSession({ sessionId: "s", store, budget: -1 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "budget" }) }));
    expect(() => new AmplifierSession({ sessionId: "s", store, budget: 1_000, turnReserve: 1_000 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "turnReserve" }) }));
    expect(() => new AmplifierSession({ sessionId: "s", store: 7 as never })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "store" }) }));
    expect(() => new AmplifierSession({ sessionId: "s", store, tools: [{ description: "nameless" } as never] })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "tools[0].name" }) }));
  });

  it("a bad session id is the store's INVALID_SESSION_ID", async () => {
    await expect(sessionOn(new MemoryStore(), { sessionId: "../etc" }).getItems()).rejects.toMatchObject({ code: "INVALID_SESSION_ID" });
  });

  it("a stored message the session did not write is INVALID_MESSAGE naming it", async () => {
    const store = new MemoryStore();
    await store.append("s1", { role: "user", content: "written by someone else", metadata: { id: "x1" } });
    await expect(sessionOn(store).getItems()).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { path: "messages[0].metadata.agentsItem", given: "x1" } });
  });

  it("after close() every method is SESSION_CLOSED; close() is idempotent and leaves a store it was given open", async () => {
    const store = new MemoryStore();
    const session = sessionOn(store);
    await session.addItems([user("hi")]);
    await session.close();
    await session.close();
    await expect(session.getSessionId()).rejects.toMatchObject({ code: "OPENAI_AGENTS/SESSION_CLOSED" });
    await expect(session.getItems()).rejects.toMatchObject({ code: "OPENAI_AGENTS/SESSION_CLOSED" });
    await expect(session.addItems([user("x")])).rejects.toMatchObject({ code: "OPENAI_AGENTS/SESSION_CLOSED" });
    expect(await store.count("s1")).toBe(1);
    expect(await sessionOn(store).getItems()).toEqual([user("hi")]);
  });

  it("close() closes a store the session built from a config", async () => {
    const session = new AmplifierSession({ sessionId: "s1", store: { type: "memory" } });
    await session.addItems([user("hi")]);
    await session.close();
    // A new session on a new memory store starts empty: the first store was the session's own.
    const next = new AmplifierSession({ sessionId: "s1", store: "memory:" });
    expect(await next.getItems()).toEqual([]);
    await next.close();
  });
});

/** A MemoryStore whose next appendMany fails: after writing (UNCERTAIN) or before (FAILED). */
class FlakyStore extends MemoryStore {
  failNext = false;
  constructor(private readonly mode: "uncertain-after-write" | "failed-before-write") {
    super();
  }
  override async appendMany(sessionId: string, messages: Message[], scope?: { agentId?: string }): Promise<void> {
    if (!this.failNext) return super.appendMany(sessionId, messages, scope);
    this.failNext = false;
    if (this.mode === "failed-before-write") throw createError("STORAGE_WRITE_FAILED", "refused (test)", { module: "test" });
    await super.appendMany(sessionId, messages, scope);
    throw createError("STORAGE_WRITE_UNCERTAIN", "reply lost (test)", { module: "test", messageIds: messages.map((m) => m.metadata?.id) });
  }
}
