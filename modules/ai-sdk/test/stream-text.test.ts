import { stepCountIs, streamText, wrapLanguageModel, type ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { startFakeApiServer } from "../../../test/providers/fake-api-server.js";
import { fitWindowMiddleware, fitWindowPrepareStep } from "../index.js";
import { MODEL, provider, SYSTEM, tools } from "./agent-loop.js";
import { scriptedReply } from "./scripted-model.js";
import { pairsOf, requestTokens } from "./request-checks.js";

/**
 * streamText (the SSE path: the middleware's transformParams runs with type "stream", prepareStep
 * the same as for generateText) against the fake server's streaming Chat Completions: 40 turns with
 * tool calls, a budget small enough that most requests are fitted.
 */
const TURNS = 40;
const BUDGET = 3_000;

describe.each(["prepareStep", "middleware"] as const)("streamText through %s, streaming Chat Completions", (name) => {
  it(`${TURNS} turns with tool calls: every request valid, under the budget counted from its body, pairs whole`, async () => {
    const fake = await startFakeApiServer((api, body, index) => scriptedReply(api, body, index));
    try {
      const chat = provider(fake.url).chat(MODEL);
      const model = name === "middleware" ? wrapLanguageModel({ model: chat, middleware: fitWindowMiddleware({ model: MODEL, budget: BUDGET }) }) : chat;
      const prepareStep = name === "prepareStep" ? fitWindowPrepareStep({ model: MODEL, budget: BUDGET, tools, system: SYSTEM }) : undefined;
      const history: ModelMessage[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        history.push({ role: "user", content: `question ${turn}: what do the notes say about topic ${turn}?` });
        const result = streamText({ model, system: SYSTEM, tools, messages: history, stopWhen: stepCountIs(5), ...(prepareStep ? { prepareStep } : {}) });
        let text = "";
        for await (const chunk of result.textStream) text += chunk;
        expect(text).toMatch(new RegExp(`Answer ${turn}:`));
        history.push(...(await result.response).messages);
      }
      expect(fake.received.every((r) => r.body.stream === true)).toBe(true);
      expect(fake.received.flatMap((r) => r.problems)).toEqual([]);
      const counts = fake.received.map((r) => requestTokens(r, MODEL));
      expect(Math.max(...counts)).toBeLessThanOrEqual(BUDGET);
      expect(counts.some((c) => c > 0.6 * BUDGET)).toBe(true);
      for (const r of fake.received) {
        const { calls, results } = pairsOf(r);
        expect([...results].sort()).toEqual([...calls].sort());
      }
    } finally {
      await fake.close();
    }
  });
});
