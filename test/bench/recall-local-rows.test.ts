import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { LOCAL_EMBEDDER_NAME } from "../../modules/embedder-local/index.js";
import { cachedEmbedder, resetVectorFiles } from "../eval/cached-embedder.js";
import { DIALOGUE_METHODS, runDialogueEval } from "../eval/recall-dialogue-eval.js";
import { historyFor, type DialogueConversation } from "../eval/realtalk.js";
import { searchableText } from "../../modules/search/message-text.js";
import { addLocalRows } from "./recall-quality.js";

/** A small conversation with one question per split. */
function conversation(): DialogueConversation {
  const messages: Message[] = [];
  for (let i = 0; i < 30; i++) messages.push({ role: i % 2 ? "assistant" : "user", name: i % 2 ? "Bo" : "Al", content: `turn ${i} about the garden and the weather`, metadata: { id: `D${i}` } });
  messages[7] = { ...messages[7]!, content: "my sister adopted a greyhound called Biscuit" };
  return {
    name: "tiny",
    speakers: ["Al", "Bo"],
    messages,
    sessions: 1,
    dropped: 0,
    questions: [
      { id: "tiny#0", conversation: "tiny", text: "What dog did the sister adopt?", answer: "a greyhound", category: 1, evidence: ["D7"], split: "dev" },
      { id: "tiny#1", conversation: "tiny", text: "What is Biscuit?", answer: "a greyhound", category: 1, evidence: ["D7"], split: "heldout" },
    ],
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vectors-"));
  process.env.EVAL_VECTOR_DIR = dir;
  resetVectorFiles();
});
afterEach(() => {
  delete process.env.EVAL_VECTOR_DIR;
  resetVectorFiles();
  rmSync(dir, { recursive: true, force: true });
});

const base = DIALOGUE_METHODS.filter((m) => m.id === "recall");

describe("the bench's embedder-local rows (recall-eval scenario)", () => {
  it("without a cache file: skipped, saying why and how to make it; the runs keep their rows", async () => {
    const c = conversation();
    const dev = await runDialogueEval([c], { split: "dev", methods: base, budgets: [2_000] });
    const heldout = await runDialogueEval([c], { split: "heldout", methods: base, budgets: [2_000] });
    const local = await addLocalRows([c], dev, heldout, () => undefined);
    expect(local).toMatchObject({ added: false, note: expect.stringMatching(/skipped: no cached vectors at .*--local-embedder/) });
    expect(dev.outcomes.map((o) => o.method)).toEqual(base.map((m) => m.label));
  });

  it("a cache lacking texts: skipped (the model is never loaded); a full cache: one dev row per mixing and the held-out row", async () => {
    const c = conversation();
    const dev = await runDialogueEval([c], { split: "dev", methods: base });
    const heldout = await runDialogueEval([c], { split: "heldout", methods: base });
    // Half the texts: a partial cache.
    const toy = (texts: string[]) => texts.map((t) => Float32Array.from({ length: 512 }, (_, i) => ((t.charCodeAt(i % t.length) || 1) % 7) + 1));
    const texts = [...new Set([...c.messages, ...c.questions.map((q) => historyFor(c, q).at(-1)!)].map((m) => searchableText(m)))];
    await cachedEmbedder({ name: LOCAL_EMBEDDER_NAME, model: () => ({ name: "toy", embed: async (t) => toy(t) }) }).embed(texts.slice(0, 10));
    resetVectorFiles();
    const partial = await addLocalRows([c], dev, heldout, () => undefined);
    expect(partial).toMatchObject({ added: false, note: expect.stringMatching(/skipped: the cache .* lacks vectors/) });
    expect(dev.outcomes).toHaveLength(1);
    // Every text the runs ask for (messages, questions, their recall queries), by a toy model standing in for the real one.
    const filler = cachedEmbedder({ name: LOCAL_EMBEDDER_NAME, model: () => ({ name: "toy", embed: async (t) => toy(t) }) });
    const { localEmbedderMethods } = await import("../eval/recall-eval.js");
    const fill = (await localEmbedderMethods([{ mixing: "rrf" }])).map((m) => ({ ...m, embedder: () => filler }));
    await runDialogueEval([c], { split: "dev", methods: fill });
    await runDialogueEval([c], { split: "heldout", methods: fill });
    resetVectorFiles();
    const full = await addLocalRows([c], dev, heldout, () => undefined);
    expect(full.added).toBe(true);
    expect(dev.outcomes.map((o) => o.method)).toEqual([base[0]!.label, "recall + embedder-local (USE lite, z-score mixing)", "recall + embedder-local (USE lite, RRF)"]);
    expect(heldout.outcomes.map((o) => o.method)).toEqual([base[0]!.label, full.heldoutLabel]);
  });
});
