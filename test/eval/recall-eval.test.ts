import { describe, expect, it } from "vitest";
import { evaluate, METHODS } from "./recall-eval.js";
import { generateRecallConversation } from "./recall-corpus.js";

// The harness on one seeded conversation: the recent window cannot answer questions about facts
// ≥ 60 turns old; recall (lexical, model-free) answers nearly all at 4k. A regression test for
// recall's quality as much as for the harness.
describe("recall evaluation harness", () => {
  const conversation = generateRecallConversation({ seed: 1003 });

  it("recent window at 4k: few or none answerable; every question counted", async () => {
    const o = await evaluate(conversation, METHODS[0]!, 4_000);
    expect(o.questions).toBe(conversation.questions.length);
    expect(o.answered / o.questions).toBeLessThan(0.2);
    expect(o.missed).toHaveLength(o.questions - o.answered);
  });

  it("recall (lexical) at 4k: ≥ 90 % answerable", async () => {
    const o = await evaluate(conversation, METHODS[1]!, 4_000);
    expect(o.answered / o.questions).toBeGreaterThanOrEqual(0.9);
  });
});
