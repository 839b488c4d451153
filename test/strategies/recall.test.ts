import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import type { HistorySearch, SearchOptions } from "../../contracts/search.js";
import { checkWindowInvariants } from "../../testing/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { autoK, RECALL_EXCHANGE, RECALL_FILL, RECALL_FILL_BACK, RECALL_STEP, RecallStrategy, recallOptions } from "../../modules/strategies/recall.js";
import { createStrategy } from "../../modules/strategies/registry.js";
import { assistant, contextFor, ids, openaiGroup, system, user } from "../../modules/strategies/test/helpers.js";

const counter = getTokenCounter("gpt-4o");
const tokens = (ms: readonly Message[]) => ms.reduce((n, m) => n + counter.countMessage(m), 0);
const recalledIds = (ms: readonly Message[]) => ms.filter((m) => m.metadata?.recalled === true).map((m) => m.metadata!.id);

/** n filler turns about nothing in particular (~40 tokens each). */
function filler(n: number, tag = "f"): Message[] {
  return Array.from({ length: n }, (_, i) => [user(`${tag}${i} let us continue with the next routine step of the chore list`), assistant(`${tag}${i} done with that routine step, moving on to the following chore`)]).flat();
}

const BUDGET = 1_500;

describe("recall", () => {
  it("brings back the old exchange that answers the current prompt, after the system messages, marked, prompt last", async () => {
    const sys = system("You are a helpful assistant.");
    const question = user("By the way, the staging database listens on port 5433.");
    const answer = assistant("Got it: staging database, port 5433.");
    const prompt = user("Which port does the staging database listen on?");
    const history = [sys, ...filler(5, "a"), question, answer, ...filler(40, "b"), prompt];
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    expect(out[0]).toBe(sys);
    // The hit and the reply after it, then its wider neighbours while the budget lasts (issue 19),
    // all in stored order right after the system message.
    const recalled = recalledIds(out);
    expect(recalled).toEqual(expect.arrayContaining(ids([question, answer])));
    expect(ids(out.slice(1, 1 + recalled.length))).toEqual(recalled);
    expect(recalled.indexOf(answer.metadata!.id)).toBe(recalled.indexOf(question.metadata!.id) + 1);
    expect(out.at(-1)).toBe(prompt);
    expect(prompt.metadata?.recalled).toBeUndefined();
    // The recalled copies carry the stored content; the stored messages are not marked.
    expect(out.find((m) => m.metadata?.id === question.metadata!.id)).toMatchObject({ content: question.content, metadata: { recalled: true } });
    expect(question.metadata?.recalled).toBeUndefined();
    // Then the recent window, contiguous and in stored order.
    const recent = out.slice(1 + recalled.length);
    const start = history.indexOf(recent[0]!);
    expect(recent).toEqual(history.slice(start));
    expect(checkWindowInvariants(history, out.map((m) => ({ ...m })), { budget: BUDGET, counter })).toEqual([]);
  });

  it("returns the input unchanged when the whole history fits", async () => {
    const history = [system("s"), ...filler(3), user("port?")];
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    expect(out).toEqual(history);
    expect(recalledIds(out)).toEqual([]);
  });

  it("never recalls what is already in the recent part (de-duplicated by id), nor the prompt itself", async () => {
    const recentMention = user("zebra crossing near the office");
    const prompt = user("where is the zebra crossing?");
    const history = [...filler(40, "old"), recentMention, assistant("ok"), prompt];
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    expect(recalledIds(out)).toEqual([]);
    expect(ids(out).filter((id) => id === recentMention.metadata!.id)).toHaveLength(1);
    expect(out.at(-1)).toBe(prompt);
  });

  it("recalls a tool result with its call, every result of that call, and the prompt of its turn", async () => {
    const ask = user("please read the deployment settings");
    const group = openaiGroup("g", "region: eu-west-3\nreplicas: 7", "unrelated second file");
    const done = assistant("I have read them.");
    const prompt = user("How many replicas in eu-west-3?");
    const history = [...filler(3, "a"), ask, ...group, done, ...filler(40, "b"), prompt];
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    // The group with the prompt of its turn and the reply after it, in stored order (neighbours
    // and other hits around them: filler "b3" shares the term "3" with "eu-west-3").
    const recalled = recalledIds(out);
    const at = recalled.indexOf(ask.metadata!.id);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(recalled.slice(at, at + 5)).toEqual(ids([ask, ...group, done]));
    expect(checkWindowInvariants(history, out.map((m) => ({ ...m })), { budget: BUDGET, counter })).toEqual([]);
  });

  it("keeps recalled messages within `share` of the available budget and at most k hits when the message asks nothing", async () => {
    const facts = Array.from({ length: 12 }, (_, i) => [user(`fact ${i}: the walrus password is W${i}`), assistant(`walrus password W${i} stored`), ...filler(2, `w${i}-`)]).flat();
    const prompt = user("Use the walrus password for the deploy.");
    const history = [...facts, ...filler(60), prompt];
    const context = contextFor(BUDGET);
    const available = BUDGET * RECALL_FILL - counter.replyPriming;
    for (const share of [0.1, 0.3, 0.5]) {
      const out = await createStrategy({ use: "recall", share, k: 20 }).compact(history, context);
      const recalled = out.filter((m) => m.metadata?.recalled === true);
      expect(recalled.length).toBeGreaterThan(0);
      expect(tokens(recalled)).toBeLessThanOrEqual(share * available);
    }
    // k 2: two hits (here the statement of fact 0 and its reply, the best two) and their ±1
    // neighbours (filler around them) — no other fact; k 6 brings more facts back.
    const walrus = (out: readonly Message[]) => out.filter((m) => m.metadata?.recalled === true && String(m.content).includes("walrus")).length;
    const two = await createStrategy({ use: "recall", share: 0.5, k: 2 }).compact(history, context);
    expect(walrus(two)).toBeGreaterThanOrEqual(2);
    expect(walrus(two)).toBeLessThanOrEqual(4);
    expect(walrus(await createStrategy({ use: "recall", share: 0.5, k: 6 }).compact(history, context))).toBeGreaterThan(walrus(two));
  });

  it("gives what recall leaves unused back to the recent window", async () => {
    const history = [...filler(60), user("a question matching nothing stored: quasar")];
    const out = await createStrategy({ use: "recall", share: 0.5 }).compact(history, contextFor(BUDGET));
    expect(recalledIds(out)).toEqual([]);
    expect(tokens(out)).toBeGreaterThan(0.6 * BUDGET * RECALL_FILL);
    expect(tokens(out) + counter.replyPriming).toBeLessThanOrEqual(BUDGET * RECALL_FILL);
  });

  it("uses the context's search when the CompactionContext has one, asking only for hits before the recent part", async () => {
    const calls: { query: string; options: SearchOptions | undefined }[] = [];
    const old = user("the kiwi api key rotates every 30 days");
    const search: HistorySearch = {
      search: (query, options) => {
        calls.push({ query, options });
        return [{ id: old.metadata!.id as string, index: 0, score: 1, message: old, terms: ["kiwi"] }];
      },
    };
    const history = [old, assistant("ok"), ...filler(40), user("when does the kiwi key rotate?")];
    const recall = createStrategy({ use: "recall" });
    const out = await recall.compact(history, { ...contextFor(BUDGET), search });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query).toBe("when does the kiwi key rotate?");
    expect(typeof calls[0]!.options?.before).toBe("string");
    expect(recalledIds(out).slice(0, 2)).toEqual(ids([old, history[1]!]));
    // Same query, same recent part, the history unchanged (or only grown): the hits are reused.
    expect(ids(await recall.compact(history, { ...contextFor(BUDGET), search }))).toEqual(ids(out));
    expect(calls).toHaveLength(1);
    // Another prompt: searched again.
    await recall.compact([...history, assistant("every 30 days"), user("and the kiwi secret?")], { ...contextFor(BUDGET), search });
    expect(calls).toHaveLength(2);
  });

  it("keeps its plan while the history only grows under the same prompt: same start, same recalled copies (a stable prefix)", async () => {
    const fact = user("the otter server runs on host pluto-9");
    const prompt = user("which host runs the otter server?");
    const history = [fact, assistant("ok"), ...filler(40), prompt];
    const recall = createStrategy({ use: "recall" });
    const first = await recall.compact(history, contextFor(BUDGET));
    const grown = [...history, ...openaiGroup("q", "pluto-9 is up")];
    const second = await recall.compact(grown, contextFor(BUDGET));
    expect(second.slice(0, first.length)).toEqual(first);
    first.forEach((m, i) => expect(second[i]).toBe(m));
    expect(recalledIds(second).slice(0, 2)).toEqual(ids([fact, history[1]!]));
    // A new prompt: the next test.
  });

  it("a new prompt keeps the plan (and the provider's cached prefix) unless it asks for something the window lacks (issue 19)", async () => {
    const otter = user("the otter server runs on host pluto-9");
    const walrus = user("the walrus job runs on host saturn-4");
    const history = [walrus, assistant("noted"), ...filler(20, "p"), otter, assistant("ok"), ...filler(40), user("which host runs the otter server?")];
    const calls: string[] = [];
    let current: readonly Message[] = history;
    const index = new HistorySearchIndex(() => current);
    const search: HistorySearch = {
      search: (query, options) => {
        calls.push(query);
        return index.search(query, options);
      },
    };
    const recall = createStrategy({ use: "recall" });
    const first = await recall.compact(history, { ...contextFor(BUDGET), search });
    expect(recalledIds(first)).toContain(otter.metadata!.id);
    const prefix = (out: readonly Message[]) => out.slice(0, first.length - 1); // all but the prompt
    // A request (no question clause): the plan stays, no search.
    current = [...history, assistant("pluto-9"), user("Restart the otter server please.")];
    const request = await recall.compact(current, { ...contextFor(BUDGET), search });
    expect(calls).toHaveLength(1);
    prefix(first).forEach((m, i) => expect(request[i]).toBe(m));
    // A question whose best hits the window holds: searched, the plan stays.
    current = [...current, assistant("restarted"), user("is the otter server on pluto-9 still?")];
    const same = await recall.compact(current, { ...contextFor(BUDGET), search });
    expect(calls).toHaveLength(2);
    prefix(first).forEach((m, i) => expect(same[i]).toBe(m));
    // A question reaching for what the window lacks: a new plan with it.
    current = [...current, assistant("yes"), user("which host runs the walrus job?")];
    const other = await recall.compact(current, { ...contextFor(BUDGET), search });
    expect(calls).toHaveLength(3);
    expect(recalledIds(other)).toContain(walrus.metadata!.id);
    expect(checkWindowInvariants(current, other.map((m) => ({ ...m })), { budget: BUDGET, counter })).toEqual([]);
    // Before the fix (replanEveryPrompt): every new prompt re-planned, the request too.
    const eager = new RecallStrategy(recallOptions.parse({}), { replanEveryPrompt: true });
    const a = await eager.compact(history, contextFor(BUDGET));
    const b = await eager.compact([...history, assistant("pluto-9"), user("Restart the otter server please.")], contextFor(BUDGET));
    expect(ids(b.slice(0, a.length - 1))).not.toEqual(ids(a.slice(0, a.length - 1)));
  });

  it("does not wait for an index that is catching up on a large backlog: no hits this window, warm() called", async () => {
    let warmed = 0;
    const search: HistorySearch = { search: () => { throw new Error("must not search"); }, ready: () => false, warm: () => void warmed++ };
    const history = [user("old kiwi fact"), assistant("ok"), ...filler(40), user("kiwi?")];
    const out = await createStrategy({ use: "recall" }).compact(history, { ...contextFor(BUDGET), search });
    expect(warmed).toBe(1);
    expect(recalledIds(out)).toEqual([]);
    expect(out.at(-1)).toBe(history.at(-1));
  });

  it("searches again once the index is ready: a window made without hits is not kept as the plan", async () => {
    const fact = user("the old kiwi fact");
    let ready = false;
    const search: HistorySearch = {
      search: () => [{ id: fact.metadata!.id as string, index: 0, score: 1, message: fact }],
      ready: () => ready,
      warm: () => {},
    };
    const history = [fact, assistant("ok"), ...filler(40), user("kiwi?")];
    const recall = createStrategy({ use: "recall" });
    expect(recalledIds(await recall.compact(history, { ...contextFor(BUDGET), search }))).toEqual([]);
    ready = true;
    expect(recalledIds(await recall.compact(history, { ...contextFor(BUDGET), search })).slice(0, 2)).toEqual(ids([fact, history[1]!]));
  });

  it("query \"last-message\" searches for the newest message (a tool result in an agent loop)", async () => {
    const old = user("the flamingo service owns billing");
    const prompt = user("look up the owner");
    const group = openaiGroup("x", "owner: flamingo");
    const history = [old, assistant("noted"), ...filler(40), prompt, ...group];
    const byPrompt = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    const byLast = await createStrategy({ use: "recall", query: "last-message" }).compact(history, contextFor(BUDGET));
    expect(recalledIds(byPrompt)).not.toContain(old.metadata!.id);
    expect(recalledIds(byLast)).toContain(old.metadata!.id);
  });

  it("a question inside a request: only the question is searched (ranking \"recall\"); ranking \"search\" searches the whole message", async () => {
    const calls: string[] = [];
    const fact = user("Side note: the heron cluster runs in Oslo.");
    const search: HistorySearch = {
      search: (query) => {
        calls.push(query);
        return [{ id: fact.metadata!.id as string, index: 0, score: 1, message: fact, terms: ["heron"] }];
      },
    };
    const prompt = user("Please profile the upload service and open a draft PR. Quick question first: where does the heron cluster run?");
    const history = [fact, assistant("noted"), ...filler(40), prompt];
    await createStrategy({ use: "recall" }).compact(history, { ...contextFor(BUDGET), search });
    await createStrategy({ use: "recall", ranking: "search" }).compact(history, { ...contextFor(BUDGET), search });
    expect(calls).toEqual(["where does the heron cluster run?", prompt.content]);
  });

  it("ranking \"cues\" asks the search for a larger pool and reorders it: a statement holding a name beats a request on the same topic", async () => {
    const asked: (number | undefined)[] = [];
    const request = user("please tidy the walrus module");
    const statement = user("Ingrid Costa owns the walrus module now.");
    // Far enough apart that one is never the other's neighbour.
    const history = [request, assistant("tidied"), ...filler(10, "gap"), statement, assistant("noted"), ...filler(40), user("who owns the walrus module?")];
    const search: HistorySearch = {
      search: (_query, options) => {
        asked.push(options?.k);
        return [
          { id: request.metadata!.id as string, index: 0, score: 2, message: request, terms: ["walrus", "modul"] },
          { id: statement.metadata!.id as string, index: 22, score: 1.5, message: statement, terms: ["walrus", "modul"] },
        ];
      },
    };
    const byRecall = await createStrategy({ use: "recall", k: 1, ranking: "cues" }).compact(history, { ...contextFor(BUDGET), search });
    const bySearch = await createStrategy({ use: "recall", k: 1, ranking: "search" }).compact(history, { ...contextFor(BUDGET), search });
    expect(asked).toEqual([80, 3]);
    expect(recalledIds(byRecall)).toContain(statement.metadata!.id);
    expect(recalledIds(byRecall)).not.toContain(request.metadata!.id);
    expect(recalledIds(bySearch)).toContain(request.metadata!.id);
    expect(recalledIds(bySearch)).not.toContain(statement.metadata!.id);
  });

  it("places every hit before the replies answering them: a long reply to the best hit does not crowd out the next hits", async () => {
    const share = 0.3;
    const recallBudget = (Math.floor(BUDGET * RECALL_FILL) - counter.replyPriming) * RECALL_STEP * share;
    const first = user("the yak server is called tundra");
    const second = user("the yak backup goes to glacier, on the cold storage tier, every night at two");
    // The reply fits the share with its hit, but then the second hit no longer does.
    let words = 1;
    const reply = (n: number) => assistant(`Noted. ${"word ".repeat(n)}`);
    while (counter.countMessage(first) + counter.countMessage(reply(words + 1)) <= recallBudget) words++;
    const longReply = reply(words);
    expect(counter.countMessage(first) + counter.countMessage(longReply)).toBeLessThanOrEqual(recallBudget);
    expect(counter.countMessage(first) + counter.countMessage(longReply) + counter.countMessage(second)).toBeGreaterThan(recallBudget);
    const history = [first, longReply, second, assistant("ok"), ...filler(40), user("tell me about the yak server and the yak backup")];
    const out = await createStrategy({ use: "recall", share }).compact(history, contextFor(BUDGET));
    const recalled = recalledIds(out);
    expect(recalled).toContain(first.metadata!.id);
    expect(recalled).toContain(second.metadata!.id);
    expect(recalled).not.toContain(longReply.metadata!.id); // it does not fit what the hits left
  });

  it("a question reaching into the past gets the budget the recent turns do not need; the prompt and the last exchange stay (issue 19)", async () => {
    const facts = Array.from({ length: 30 }, (_, i) => [user(`note ${i}: the heron key is H${i}`), assistant(`heron key H${i} noted`)]).flat();
    const lastAsk = user("ok, next chore please");
    const lastReply = assistant("next chore done");
    const question = user("What was the heron key?");
    const history = [...facts, ...filler(40), lastAsk, lastReply, question];
    const available = Math.floor(BUDGET * RECALL_FILL) - counter.replyPriming;
    const out = await createStrategy({ use: "recall", share: 0.2 }).compact(history, contextFor(BUDGET));
    const recalled = out.filter((m) => m.metadata?.recalled === true);
    expect(tokens(recalled)).toBeGreaterThan(1.5 * 0.2 * RECALL_STEP * available); // far beyond share 0.2
    // The plan is made for this question: it may use the slack up to RECALL_FILL_BACK, never beyond.
    expect(tokens(out) + counter.replyPriming).toBeLessThanOrEqual(Math.floor(BUDGET * RECALL_FILL_BACK));
    expect(out.slice(-3)).toEqual([lastAsk, lastReply, question]);
    // Asking nothing (a request): the share holds.
    const request = await createStrategy({ use: "recall", share: 0.2 }).compact([...history.slice(0, -1), user("Rotate the heron key.")], contextFor(BUDGET));
    expect(tokens(request.filter((m) => m.metadata?.recalled === true))).toBeLessThanOrEqual(0.2 * RECALL_STEP * available);
    // A question whose best hit is recent (current work): the share holds too.
    const recent = [...facts, ...filler(40), user("the osprey build failed on step 4"), assistant("osprey step 4 fails on a lint error"), user("Why does the osprey build fail?")];
    const aboutNow = await createStrategy({ use: "recall", share: 0.2 }).compact(recent, contextFor(BUDGET));
    expect(tokens(aboutNow.filter((m) => m.metadata?.recalled === true))).toBeLessThanOrEqual(0.2 * RECALL_STEP * available);
  });

  it("a question reaching into the past keeps of a long last exchange only its newest messages within RECALL_EXCHANGE of the plan, and stays within RECALL_FILL_BACK", async () => {
    const facts = Array.from({ length: 60 }, (_, i) => [user(`note ${i}: the heron key is H${i}, on the card in the drawer of the old oak desk by the window`), assistant(`heron key H${i} noted, with the card, the drawer and the oak desk by the window`)]).flat();
    const lastAsk = user("ok, next chore please");
    const replies = Array.from({ length: 6 }, (_, i) => assistant(`part ${i} of the long answer about the routine chores of the week, with every step spelled out`));
    const question = user("What was the heron key?");
    const history = [...facts, ...filler(40), lastAsk, ...replies, question];
    const available = Math.floor(BUDGET * RECALL_FILL) - counter.replyPriming;
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    expect(tokens(out) + counter.replyPriming).toBeLessThanOrEqual(Math.floor(BUDGET * RECALL_FILL_BACK));
    const recentReplies = out.filter((m) => replies.includes(m));
    expect(recentReplies.length).toBeGreaterThan(0);
    expect(recentReplies.length).toBeLessThan(replies.length);
    expect(recentReplies).toEqual(replies.slice(-recentReplies.length)); // the newest ones, contiguous
    expect(tokens(recentReplies)).toBeLessThanOrEqual(RECALL_EXCHANGE * RECALL_STEP * available);
    expect(out.at(-1)).toBe(question);
    expect(recalledIds(out).length).toBeGreaterThan(0);
    expect(checkWindowInvariants(history, out.map((m) => ({ ...m })), { budget: BUDGET, counter })).toEqual([]);
  });

  it("brings a hit back with its neighbours and its session's date header (issue 19)", async () => {
    const header = user("[Session 2 · Friday 29 December 2023]");
    const before = user("how was the trip?");
    const hit = assistant("We hiked up to the pelican lighthouse, it was windy.");
    const after = user("sounds lovely");
    const history = [user("[Session 1 · Monday 25 December 2023]"), ...filler(5, "s1"), header, ...filler(10, "s2"), before, hit, after, ...filler(40, "s3"), user("Which lighthouse did we go to?")];
    const out = await createStrategy({ use: "recall" }).compact(history, contextFor(BUDGET));
    expect(recalledIds(out)).toEqual(expect.arrayContaining(ids([header, before, hit, after])));
    expect(recalledIds(out)).not.toContain(history[0]!.metadata!.id); // another session's header
    const narrow = await createStrategy({ use: "recall", k: 1 }).compact(history, contextFor(BUDGET));
    expect(recalledIds(narrow)).toEqual(expect.arrayContaining(ids([header, hit])));
  });

  it("k unset: the hits asked for are set by the budget (autoK), k set: k × 3", async () => {
    expect(autoK(100)).toBe(8);
    expect(autoK(2_000)).toBe(40);
    expect(autoK(1e6)).toBe(100);
    const asked: (number | undefined)[] = [];
    const search: HistorySearch = { search: (_q, options) => (asked.push(options?.k), []) };
    const history = [...filler(60), user("which port?")];
    await createStrategy({ use: "recall", ranking: "search" }).compact(history, { ...contextFor(BUDGET), search });
    await createStrategy({ use: "recall", ranking: "search", k: 4 }).compact(history, { ...contextFor(BUDGET), search });
    expect(asked).toEqual([autoK(Math.floor(BUDGET * RECALL_FILL) - counter.replyPriming), 12]);
  });

  it("validates its options strictly: unknown option with a hint, bad values with the path", () => {
    expect(() => createStrategy({ use: "recall", topK: 3 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].topK" }) }));
    expect(() => createStrategy({ use: "recall", Share: 0.3 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ hint: expect.stringContaining("share") }) }));
    expect(() => createStrategy({ use: "recall", share: 1.5 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].share" }) }));
    expect(() => createStrategy({ use: "recall", query: "everything" })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
    expect(() => createStrategy({ use: "recall", ranking: "bm25" })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].ranking" }) }));
  });

  it("feedback (off by default) asks the search for pseudo-relevance feedback: true → the defaults, an object → its settings", async () => {
    const seen: (SearchOptions["feedback"] | undefined)[] = [];
    const old = user("the kiwi api key rotates every 30 days");
    const search: HistorySearch = { search: (_q, options) => (seen.push(options?.feedback), [{ id: old.metadata!.id as string, index: 0, score: 1, message: old }]) };
    const history = [old, assistant("ok"), ...filler(40), user("when does the kiwi key rotate?")];
    for (const feedback of [undefined, true, { docs: 3, terms: 4, weight: 0.25 }]) {
      await createStrategy({ use: "recall", ...(feedback === undefined ? {} : { feedback }) }).compact(history, { ...contextFor(BUDGET), search });
    }
    expect(seen).toEqual([undefined, {}, { docs: 3, terms: 4, weight: 0.25 }]);
    expect(() => createStrategy({ use: "recall", feedback: { weight: 2 } })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
    expect(() => createStrategy({ use: "recall", feedback: { depth: 2 } })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS" }));
  });

  it("mixing (issue 30; \"zscore\" by default) asks the search for z-score mixing with its dense weight, \"rrf\" for rank fusion; bad values are typed config errors", async () => {
    const seen: [SearchOptions["mixing"], SearchOptions["denseWeight"]][] = [];
    const old = user("the kiwi api key rotates every 30 days");
    const search: HistorySearch = { search: (_q, options) => (seen.push([options?.mixing, options?.denseWeight]), [{ id: old.metadata!.id as string, index: 0, score: 1, message: old }]) };
    const history = [old, assistant("ok"), ...filler(40), user("when does the kiwi key rotate?")];
    for (const options of [{}, { mixing: "rrf" }, { mixing: "zscore" }, { mixing: "zscore", denseWeight: 0.5 }]) {
      await createStrategy({ use: "recall", smoothing: 0, ...options }).compact(history, { ...contextFor(BUDGET), search });
    }
    expect(seen).toEqual([["zscore", 1], [undefined, undefined], ["zscore", 1], ["zscore", 0.5]]);
    expect(() => createStrategy({ use: "recall", mixing: "sum" })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].mixing" }) }));
    expect(() => createStrategy({ use: "recall", denseWeight: -1 })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].denseWeight" }) }));
    expect(() => createStrategy({ use: "recall", denseWeight: "high" })).toThrow(expect.objectContaining({ code: "INVALID_STRATEGY_OPTIONS", details: expect.objectContaining({ path: "strategies[0].denseWeight" }) }));
  });

  it("in a context module: windows hold the recalled exchange, explain says recall kept it and why, invariants hold", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: [{ use: "recall" }] } });
    await context.addMessage({ role: "system", content: "You are terse." });
    await context.addMessage({ role: "user", content: "My daughter's name is Matilda.", metadata: { id: "fact" } });
    await context.addMessage({ role: "assistant", content: "Nice name!", metadata: { id: "fact-answer" } });
    for (const m of filler(40)) await context.addMessage(m);
    await context.addMessage({ role: "user", content: "What is my daughter's name?", metadata: { id: "prompt" } });
    const window = await context.getMessagesForRequest(BUDGET, undefined, { explain: true });
    expect(ids(window.slice(1, 3))).toEqual(["fact", "fact-answer"]);
    expect(window.at(-1)!.metadata!.id).toBe("prompt");
    expect(window[1]!.metadata!.recalled).toBe(true);
    const explanation = context.explainLastWindow()!.explanation!;
    const fact = explanation.find((e) => e.id === "fact")!;
    expect(fact).toMatchObject({ decision: "kept", strategy: "recall" });
    expect(fact.reason).toMatch(/daughter/);
    expect(fact.reason).toMatch(/score/);
    expect(checkWindowInvariants(await context.getMessages(), window, { budget: BUDGET, counter })).toEqual([]);
  });
});
