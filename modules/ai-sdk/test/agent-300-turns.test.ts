import { fromAISDK } from "@amplifier-ts/adapters";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { pruneMessages, wrapLanguageModel, type ModelMessage } from "ai";
import { beforeAll, describe, expect, it } from "vitest";
import { startFakeApiServer, type FakeApiServer, type Received } from "../../../test/providers/fake-api-server.js";
import { fitWindowMiddleware, fitWindowPrepareStep, type WindowEvent } from "../index.js";
import { MODEL, provider, runAgent, scriptedReply, SYSTEM, tools, type AgentRun } from "./agent-loop.js";
import { itemsOf, pairsOf, prefixShare, requestTokens } from "./request-checks.js";

/**
 * Issue 27, "done when", for the Vercel AI SDK: an agent of 300 turns with tool calls (agent-loop.ts:
 * generateText with tools and stopWhen, `ai` 6 and @ai-sdk/openai 3 against the local fake server)
 * through each integration — the prepareStep helper (Chat Completions) and the middleware under
 * wrapLanguageModel (Responses) — and once through neither. Every request the fake received is
 * checked:
 * - valid for its API: the fake applies test/adapters/api-rules.ts (0 problems recorded);
 * - under the budget, counted INDEPENDENTLY of the integration, from the JSON body the fake received
 *   (request-checks.ts: @amplifier-ts/adapters reads the body, @amplifier-ts/tokens' gpt-4o-mini
 *   counter counts messages + reply priming + the body's own `tools`);
 * - tool pairs intact: every call sent has its result and every result its call (api-rules), and no
 *   result was made up (each call of this agent has its real result);
 * - prefix kept: the share of the previous request's messages that the next one starts with,
 *   averaged over consecutive requests, ≥ 95 %.
 * And without the integration the same loop overflows the same budget.
 */
const TURNS = Number(process.env.AI_SDK_TURNS) || 300;
const BUDGET = 20_000;

interface Outcome {
  run: AgentRun;
  received: Received[];
  events: WindowEvent[];
}

async function withFake<T>(body: (fake: FakeApiServer) => Promise<T>): Promise<{ value: T; received: Received[] }> {
  const fake = await startFakeApiServer((api, request, index) => scriptedReply(api, request, index));
  try {
    return { value: await body(fake), received: fake.received };
  } finally {
    await fake.close();
  }
}

const outcomes: Record<"prepareStep" | "middleware" | "none", Outcome> = {} as never;

beforeAll(async () => {
  {
    const events: WindowEvent[] = [];
    const { value: run, received } = await withFake((fake) =>
      runAgent({
        model: provider(fake.url).chat(MODEL),
        turns: TURNS,
        prepareStep: fitWindowPrepareStep({ model: MODEL, budget: BUDGET, tools, system: SYSTEM, onReport: (e) => void events.push(e) }),
      }),
    );
    outcomes.prepareStep = { run, received, events };
  }
  {
    const events: WindowEvent[] = [];
    const { value: run, received } = await withFake((fake) =>
      runAgent({
        model: wrapLanguageModel({ model: provider(fake.url).responses(MODEL), middleware: fitWindowMiddleware({ model: MODEL, budget: BUDGET, onReport: (e) => void events.push(e) }) }),
        turns: TURNS,
        // store: false — every input item is sent in full (no item_reference), so the body alone can be counted.
        providerOptions: { openai: { store: false } },
      }),
    );
    outcomes.middleware = { run, received, events };
  }
  {
    const { value: run, received } = await withFake((fake) => runAgent({ model: provider(fake.url).chat(MODEL), turns: TURNS }));
    outcomes.none = { run, received, events: [] };
  }
}, 900_000);

describe.each(["prepareStep", "middleware"] as const)("%s: 300 turns with tool calls through the real AI SDK, against the fake server", (name) => {
  const outcome = () => outcomes[name];

  it("ran every turn with tool calls; the SDK's own history stays whole (only what is sent is fitted)", () => {
    const { run, received, events } = outcome();
    expect(run.history.filter((m) => m.role === "user")).toHaveLength(TURNS);
    expect(run.history.filter((m) => m.role === "tool").length).toBeGreaterThanOrEqual(TURNS);
    expect(received).toHaveLength(run.steps);
    expect(events).toHaveLength(run.steps);
    expect(events.some((e) => e.messagesOut < e.messagesIn)).toBe(true);
  });

  it("every request was valid for its API: 0 problems recorded", () => {
    const problems = outcome().received.flatMap((r, i) => r.problems.map((p) => `request ${i}: ${p}`));
    expect(problems).toEqual([]);
  });

  it("every request is under the budget, counted from the body the fake received", () => {
    const counts = outcome().received.map((r) => requestTokens(r, MODEL));
    const over = counts.map((tokens, i) => ({ i, tokens })).filter((c) => c.tokens > BUDGET);
    console.log(`${name}: request tokens max ${Math.max(...counts)} / budget ${BUDGET}, last ${counts.at(-1)} (${counts.length} requests)`);
    expect(over).toEqual([]);
    expect(Math.max(...counts)).toBeGreaterThan(0.6 * BUDGET);
  });

  it("tool pairs intact: every call sent with its real result, none made up", () => {
    for (const [i, r] of outcome().received.entries()) {
      const { calls, results } = pairsOf(r);
      expect([...results].sort(), `request ${i}`).toEqual([...calls].sort());
    }
    const sent = JSON.stringify(outcome().received.map((r) => itemsOf(r)));
    expect(sent).not.toContain("tool call interrupted");
  });

  it("keeps the prefix: on average ≥ 95 % of the previous request's messages start the next one", () => {
    const { received } = outcome();
    const shares = received.slice(1).map((r, i) => prefixShare(itemsOf(received[i]!), itemsOf(r)));
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    const cuts = shares.filter((s) => s < 1).length;
    console.log(`${name}: prefix kept ${(100 * mean).toFixed(2)} % on average over ${shares.length} consecutive pairs; ${cuts} pairs below 100 %`);
    expect(mean).toBeGreaterThanOrEqual(0.95);
  });
});

describe("the same loop without the integration", () => {
  it("overflows the budget (so the integration is what keeps the requests in it)", () => {
    const { run, received } = outcomes.none;
    expect(run.history.filter((m) => m.role === "user")).toHaveLength(TURNS);
    const counts = received.map((r) => requestTokens(r, MODEL));
    const firstOver = counts.findIndex((c) => c > BUDGET);
    console.log(`no integration: first request over budget #${firstOver}, last request ${counts.at(-1)} tokens (budget ${BUDGET})`);
    expect(firstOver).toBeGreaterThan(-1);
    expect(counts.at(-1)!).toBeGreaterThan(BUDGET);
  });

  it("with the AI SDK's own pruneMessages instead: no budget (a large result overflows) and no older tool result kept, room or not", () => {
    // The whole history as the SDK holds it at each turn's last step, pruned the strongest way that keeps the step's own calls.
    const { history } = outcomes.none.run;
    const ends = history.flatMap((m, i) => (m.role === "user" ? [i] : [])).slice(1).concat(history.length);
    const pruned = ends.map((end) => pruneMessages({ messages: history.slice(0, end), reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" }));
    const counter = getTokenCounter(MODEL);
    const counts = pruned.map((messages) => counter.countRequest([{ role: "system", content: SYSTEM }, ...fromAISDK(messages as never)]));
    const max = Math.max(...counts);
    const results = (messages: readonly ModelMessage[]) => messages.filter((m) => m.role === "tool").length;
    const ours = outcomes.prepareStep.received.at(-1)!;
    const oursResults = pairsOf(ours).results.length;
    console.log(`pruneMessages(toolCalls: "before-last-2-messages"): max ${max} tokens at turn ${counts.indexOf(max)} (budget ${BUDGET}), last ${counts.at(-1)}; tool messages in the last window: ${results(pruned.at(-1)!)} (ours: ${oursResults} results in ${requestTokens(ours, MODEL)} tokens)`);
    // Pruned, the conversation passes the budget only late, at a turn whose own result is large (first at turn 219, most at 272 of 300).
    if (TURNS >= 300) expect(max).toBeGreaterThan(BUDGET);
    expect(oursResults).toBeGreaterThan(5 * results(pruned.at(-1)!));
  });
});
