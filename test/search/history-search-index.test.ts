import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import type { Embedder } from "../../contracts/search.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";

let seq = 0;
const msg = (role: Message["role"], content: string, extra: Partial<Message> = {}): Message => ({ role, content, metadata: { id: `m${++seq}` }, ...extra });

function indexOver(history: Message[][] | { current: Message[] }, options = {}) {
  const holder = Array.isArray(history) ? { current: history[0]! } : history;
  return { holder, index: new HistorySearchIndex(() => holder.current, options) };
}

describe("HistorySearchIndex", () => {
  it("ranks by BM25: the message sharing the rare query terms first, with its position, id and matched terms", async () => {
    const history = [msg("user", "hello there"), msg("assistant", "The deploy uses blue-green rollout on Kubernetes"), msg("user", "what about the weather")];
    const { index } = indexOver({ current: history });
    const hits = await index.search("kubernetes rollout", { k: 3 });
    expect(hits[0]).toMatchObject({ index: 1, id: history[1]!.metadata!.id, message: history[1] });
    expect(hits[0]!.terms).toEqual(expect.arrayContaining(["kubernet", "rollout"]));
    expect(hits.every((h, i) => i === 0 || h.score <= hits[i - 1]!.score)).toBe(true);
  });

  it("pseudo-relevance feedback: a message sharing no query term but the telling terms of the best hits is found; weights and limits hold", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 60; i++) history.push(msg("user", `unrelated chatter number ${i} about lunch`));
    const top = msg("user", "My sister Ottilie adopted a greyhound named Biscuit from the shelter");
    const second = msg("assistant", "A greyhound! Biscuit is a lovely name for a dog");
    const related = msg("user", "Ottilie says Biscuit sleeps all day on the couch"); // no query term
    const once = msg("user", "zanzibar");
    history.splice(10, 0, top);
    history.splice(30, 0, second);
    history.splice(50, 0, related);
    history.push(once);
    const { index } = indexOver({ current: history });
    const plain = await index.search("what dog did she adopt", { k: 10 });
    expect(plain.map((h) => h.id)).not.toContain(related.metadata!.id);
    const expanded = await index.search("what dog did she adopt", { k: 10, feedback: {} });
    expect(expanded.map((h) => h.id)).toContain(related.metadata!.id);
    // The first pass's order stays on top: an expansion term weighs at most `weight` of a query term.
    expect(expanded[0]!.id).toBe(plain[0]!.id);
    expect(expanded.findIndex((h) => h.id === related.metadata!.id)).toBeGreaterThan(expanded.findIndex((h) => h.id === top.metadata!.id));
    // Terms of one message only add nothing; common terms ("chatter" in most messages) are never added.
    const terms = expanded.find((h) => h.id === related.metadata!.id)!.terms;
    expect(terms).toEqual(expect.arrayContaining(["biscuit"]));
    expect(terms).not.toContain("chatter");
    // terms: 0 — no expansion, the plain ranking.
    expect((await index.search("what dog did she adopt", { k: 10, feedback: { terms: 0 } })).map((h) => h.id)).toEqual(plain.map((h) => h.id));
  });

  it("scores are plain BM25 sums: a rare telling term outranks three commoner ones (no bonus per matched term)", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 84; i++) history.push(msg("user", `unrelated chatter number ${i}`));
    for (let i = 0; i < 18; i++) history.splice(i * 5, 0, msg("user", `fix the build and deploy step ${i}`));
    history.push(msg("user", "the quokka is down"));
    const { index } = indexOver({ current: history });
    const hits = await index.search("fix build deploy quokka", { k: 3 });
    expect(hits[0]!.index).toBe(history.length - 1);
    expect(hits[0]!.terms).toEqual(["quokka"]);
    expect(hits[1]!.terms).toEqual(["fix", "build", "deploy"]);
  });

  it("prose and code are separate fields: a log pasted under a statement does not bury it, tool output weighs half", async () => {
    const log = Array.from({ length: 60 }, (_, i) => `2026-11-0${(i % 9) + 1}T10:00:00Z INFO [svc] request ${i} handled in ${i * 7} ms`).join("\n");
    const statement = "Heads up: the pelican service moved to eu-north.";
    const others = () => Array.from({ length: 10 }, (_, i) => msg("user", `please refactor the pelican service part ${i}`));
    const withLog = indexOver({ current: [msg("user", `${statement} Also look at this:\n\n\`\`\`\n${log}\n\`\`\``, { metadata: { id: "statement" } }), ...others()] }).index;
    const without = indexOver({ current: [msg("user", `${statement} Also look at this:`, { metadata: { id: "statement" } }), ...others()] }).index;
    const query = "where has the pelican service moved";
    const [a] = await withLog.search(query);
    const [b] = await without.search(query);
    expect(a!.id).toBe("statement");
    expect(a!.terms).toEqual(expect.arrayContaining(["pelican", "servic", "mov"]));
    // The log is in the code field: the statement scores exactly as it does without it.
    expect(a!.score).toBeCloseTo(b!.score, 10);
    // The same words as prose and as a tool result, field statistics alike: the tool result scores half.
    const twin = indexOver({ current: [msg("user", "pelican moved", { metadata: { id: "prose" } }), { role: "tool", tool_call_id: "c9", content: "pelican moved", metadata: { id: "tool" } }] }).index;
    const pair = await twin.search("pelican moved");
    expect(pair.map((h) => h.id)).toEqual(["prose", "tool"]);
    expect(pair[1]!.score).toBeCloseTo(pair[0]!.score * 0.5, 5);
  });

  it("drops query terms too common to tell messages apart, unless no rare term is in any message", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 100; i++) history.push(msg("user", i % 2 === 0 ? `payments ticket ${i}` : `other ticket ${i}`));
    history.push(msg("user", "the payments lead is Ines"));
    const { index } = indexOver({ current: history });
    // "payments" is in half the messages; "boss" in none: the query keeps "payments" rather than match nothing.
    expect((await index.search("who is the payments boss")).length).toBeGreaterThan(0);
    // "lead" is rare: "payments" and "ticket" are pruned, the message with "lead" first.
    expect((await index.search("payments ticket lead"))[0]!.index).toBe(100);
  });

  it("finds tool calls by name and arguments, and tool results (OpenAI and Anthropic styles)", async () => {
    const history: Message[] = [
      msg("user", "check the config"),
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "readFile", arguments: '{"path":"src/app/settings.yaml"}' } }], metadata: { id: "call" } },
      { role: "tool", tool_call_id: "c1", content: "listenPort: 8443", metadata: { id: "result" } },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "grepRepo", input: { pattern: "TODO_MARKER" } }], metadata: { id: "use" } },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "found in lib/zebra.ts" }], metadata: { id: "block-result" } },
    ];
    const { index } = indexOver({ current: history });
    expect((await index.search("settings.yaml"))[0]!.id).toBe("call");
    expect((await index.search("readFile"))[0]!.id).toBe("call");
    expect((await index.search("8443"))[0]!.id).toBe("result");
    expect((await index.search("grepRepo TODO_MARKER"))[0]!.id).toBe("use");
    expect((await index.search("zebra"))[0]!.id).toBe("block-result");
    expect((await index.search("zebra", { filter: { toolName: "grepRepo" } }))[0]!.id).toBe("block-result");
    expect(await index.search("zebra", { filter: { toolName: "readFile" } })).toEqual([]);
  });

  it("applies k, before (position or id), filter (object or function) and neighbours", async () => {
    const history = ["alpha one", "alpha two", "alpha three", "alpha four"].map((t, i) => msg(i % 2 ? "assistant" : "user", t, i === 3 ? { metadata: { id: "four", runId: "r2" } } : {}));
    const { index } = indexOver({ current: history });
    expect(await index.search("alpha", { k: 2 })).toHaveLength(2);
    expect((await index.search("alpha", { before: 2 })).map((h) => h.index).sort()).toEqual([0, 1]);
    expect((await index.search("alpha", { before: "four" })).map((h) => h.index).sort()).toEqual([0, 1, 2]);
    expect(await index.search("alpha", { before: "no-such-id" })).toEqual([]);
    expect((await index.search("alpha", { filter: { role: "assistant" } })).map((h) => h.index).sort()).toEqual([1, 3]);
    expect((await index.search("alpha", { filter: { runId: "r2" } })).map((h) => h.id)).toEqual(["four"]);
    expect((await index.search("alpha", { filter: (_m, i) => i === 2 })).map((h) => h.index)).toEqual([2]);
    const [hit] = await index.search("three", { neighbours: 1 });
    expect(hit!.neighbours).toEqual({ before: [history[1]], after: [history[3]] });
    expect((await index.search("three"))[0]!.neighbours).toBeUndefined();
  });

  it("rejects bad options with a typed error naming the option", async () => {
    const { index } = indexOver({ current: [msg("user", "x")] });
    await expect(index.search("x", { k: -1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "k" }) });
    await expect(index.search("x", { neighbours: 1.5 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(index.search(42 as unknown as string)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("indexes appended messages only (no rebuild) while the history grows by push", async () => {
    const holder = { current: [msg("user", "first apple")] };
    const { index } = indexOver(holder);
    await index.search("apple");
    expect(index.stats).toMatchObject({ indexed: 1, rebuilds: 0 });
    holder.current.push(msg("assistant", "second banana"));
    expect((await index.search("banana"))[0]!.index).toBe(1);
    expect(index.stats).toMatchObject({ indexed: 2, rebuilds: 0 });
  });

  it("rebuilds when the history is replaced: clear, a run removed, setMessages", async () => {
    const holder = { current: [msg("user", "keep cherry", { metadata: { id: "k", runId: "a" } }), msg("user", "drop cherry", { metadata: { id: "d", runId: "b" } })] };
    const { index } = indexOver(holder);
    expect(await index.search("cherry")).toHaveLength(2);
    holder.current = holder.current.filter((m) => m.metadata?.runId !== "b");
    expect((await index.search("cherry")).map((h) => h.id)).toEqual(["k"]);
    holder.current = [msg("user", "new durian")];
    expect(await index.search("cherry")).toEqual([]);
    expect((await index.search("durian"))[0]!.index).toBe(0);
    holder.current = [];
    expect(await index.search("durian")).toEqual([]);
    // The first replacement kept its first message: only the tail was taken out (a rewind).
    expect(index.stats).toMatchObject({ rebuilds: 2, rewinds: 1 });
  });

  it("a replaced tail is taken out of the index: hits, ids and term frequencies as if built afresh", async () => {
    const base = Array.from({ length: 40 }, (_, i) => msg(i % 2 ? "assistant" : "user", `filler ${i} common words here`, { metadata: { id: `m${i}` } }));
    const holder = { current: [...base, msg("user", "what about the zebra crossing?", { metadata: { id: "q1" } })] };
    const { index } = indexOver(holder);
    expect((await index.search("zebra"))[0]!.id).toBe("q1");
    holder.current = [...base, msg("user", "and the yak?", { metadata: { id: "q2" } })];
    expect(await index.search("zebra")).toEqual([]);
    expect((await index.search("yak"))[0]!.id).toBe("q2");
    expect(await index.search("crossing", { before: "q1" })).toEqual([]);
    const fresh = indexOver({ current: holder.current }).index;
    expect((await index.search("filler common yak", { k: 50 })).map((h) => [h.id, h.score])).toEqual((await fresh.search("filler common yak", { k: 50 })).map((h) => [h.id, h.score]));
    expect(index.stats).toMatchObject({ indexed: 41, rebuilds: 0, rewinds: 1 });
  });

  it("catches up on a large backlog in time slices and finds messages of every chunk", async () => {
    const history = Array.from({ length: 2_500 }, (_, i) => msg(i % 2 ? "assistant" : "user", `note number ${i} token${i}`));
    const { index } = indexOver({ current: history }, { sliceMs: 1 });
    const [first, last] = await Promise.all([index.search("token7"), index.search("token2499")]);
    expect(first![0]!.index).toBe(7);
    expect(last![0]!.index).toBe(2_499);
    expect(index.stats).toMatchObject({ indexed: 2_500, rebuilds: 0 });
    expect(index.stats.lastCatchUpMs).toBeGreaterThan(0); // the chunked path ran
  });

  it("a backlog indexed within one time slice leaves no catch-up behind: later catchUp() calls return (they once spun forever)", async () => {
    const history = Array.from({ length: 300 }, (_, i) => msg("user", `short ${i}`));
    const { index } = indexOver({ current: history }, { sliceMs: 10_000 }); // one slice takes everything
    await index.catchUp();
    // A catch-up left registered would make the next catchUp() spin on a settled promise (and a
    // spinning microtask loop blocks timers, so a timeout could not even report it): check the state.
    expect(index.ready()).toBe(true);
    history.push(msg("user", "one extra"));
    await index.catchUp();
    expect((await index.search("extra"))[0]?.index).toBe(300);
    expect(index.stats.indexed).toBe(301);
  });

  it("is not ready() with a large backlog; warm() catches up in the background", async () => {
    const history = Array.from({ length: 300 }, (_, i) => msg("user", `entry ${i} word${i}`));
    const index = new HistorySearchIndex(() => history, { backgroundBacklog: 100, sliceMs: 0 });
    expect(index.ready()).toBe(false);
    index.warm();
    expect(index.ready()).toBe(false); // catching up
    await index.catchUp();
    expect(index.ready()).toBe(true);
    expect(index.stats.indexed).toBe(300);
    history.push(msg("user", "one more"));
    expect(index.ready()).toBe(true); // a small backlog is indexed by the next search itself
  });

  it("with an embedder, fuses lexical and vector rankings (a semantic-only match is found)", async () => {
    // A toy embedder: dimension 0 = "about cars", 1 = "about food".
    const embedder: Embedder = {
      name: "toy",
      dimensions: 2,
      embed: async (texts) => texts.map((t) => Float32Array.from([/car|vehicle|automobile/i.test(t) ? 1 : 0, /pizza|food|meal/i.test(t) ? 1 : 0.01])),
    };
    const history = [msg("user", "my automobile broke down"), msg("user", "pizza tonight"), msg("user", "nothing relevant")];
    const { index } = indexOver({ current: history }, { embedder });
    await index.indexReady(); // messages are embedded in the background; this waits for them
    const hits = await index.search("vehicle", { k: 2 });
    expect(hits[0]!.index).toBe(0);
    const lexicalOnly = new HistorySearchIndex(() => history);
    expect(await lexicalOnly.search("vehicle")).toEqual([]);
  });
});
