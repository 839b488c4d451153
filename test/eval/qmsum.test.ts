import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DIALOGUE_METHODS, evaluateDialogue, renderDialogueCategories, runDialogueEval } from "./recall-dialogue-eval.js";
import { cleanTurn, domainOf, loadQmsum, QMSUM_DOMAINS, sampleQuestions, spanTurns, toMeeting } from "./qmsum.js";
import { historyFor, splitOf } from "./realtalk.js";

// A meeting written for this test in QMSum's file format (no QMSum data is kept in the
// repository: test/eval/data/qmsum/README.md).
const meeting = {
  topic_list: [{ topic: "Remote control buttons", relevant_text_span: [["0", "2"]] }],
  general_query_list: [{ query: "Summarize the whole meeting.", answer: "They talked." }],
  specific_query_list: [
    { query: "What did the Industrial Designer say about the rubber buttons?", answer: "Too expensive.", relevant_text_span: [["1", "2"]] },
    { query: "What did Marketing report about the trend survey?", answer: "Fruit and vegetables.", relevant_text_span: [["3", "3"], ["5", "5"]] },
    { query: "Which turns were only noise?", answer: "?", relevant_text_span: [["4", "4"]] },
    { query: "Broken span", answer: "?", relevant_text_span: [["9", "x"]] },
  ],
  meeting_transcripts: [
    { speaker: "Project Manager", content: "Okay , let's {disfmarker} let's start with the buttons ." },
    { speaker: "Industrial Designer", content: "The rubber buttons {vocalsound} would cost us twelve euros each ." },
    { speaker: "Project Manager", content: "That is too expensive for the budget ." },
    { speaker: "Marketing", content: "The trend survey says fruit and vegetables are in fashion ." },
    { speaker: "Marketing", content: "{vocalsound} {gap}" },
    { speaker: "User Interface", content: "And spongy materials , according to the survey ." },
    ...Array.from({ length: 60 }, (_, i) => ({ speaker: i % 2 ? "Marketing" : "User Interface", content: `small talk number ${i} about lunch and the weather` })),
  ],
};

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("QMSum loader (issue 30)", () => {
  it("reads a meeting as a history: a header, every turn a user message with the speaker's name and T<index> id, markup removed; specific queries with their span turns", () => {
    const m = toMeeting("ES2004a", meeting);
    expect(m.sessions).toBe(1);
    expect(m.messages[0]).toMatchObject({ role: "user", content: "[Meeting ES2004a]", metadata: { id: "S1" } });
    expect(m.messages[1]).toMatchObject({ role: "user", name: "Project_Manager", content: "Okay, let's let's start with the buttons.", metadata: { id: "T0" } });
    expect(m.messages[2]).toMatchObject({ name: "Industrial_Designer", content: "The rubber buttons would cost us twelve euros each.", metadata: { id: "T1" } });
    expect(m.messages.some((x) => x.metadata?.id === "T4")).toBe(false); // only markup: not a message
    expect(m.messages).toHaveLength(1 + 66 - 1);
    expect(m.speakers).toEqual(["Project Manager", "Industrial Designer"]);
    // The general query marks no turns; the noise-only span and the malformed span leave no evidence.
    expect(m.questions.map((q) => q.evidence)).toEqual([["T1", "T2"], ["T3", "T5"]]);
    expect(m.dropped).toBe(2);
    expect(m.questions.map((q) => q.id)).toEqual(["ES2004a#0", "ES2004a#1"]);
    expect(m.questions.every((q) => q.category === 1 && q.split === splitOf(q.id))).toBe(true);
    expect(historyFor(m, m.questions[0]!).at(-1)).toMatchObject({ role: "user", content: "What did the Industrial Designer say about the rubber buttons?" });
  });

  it("spans are inclusive turn ranges (strings or numbers); markup codes go; the domain comes from the meeting's name", () => {
    expect(spanTurns([["3", "5"], [7, 7], ["5", "6"]])).toEqual([3, 4, 5, 6, 7]);
    expect(spanTurns([["5", "3"], ["a", "b"], ["1"]])).toEqual([]);
    expect(spanTurns("0-3")).toEqual([]);
    expect(cleanTurn("I {disfmarker} I think {vocalsound} so .")).toBe("I I think so.");
    expect([domainOf("ES2004a"), domainOf("IS1003d"), domainOf("TS3011b"), domainOf("Bmr014"), domainOf("Bed003"), domainOf("covid_4"), domainOf("education_13")]).toEqual([1, 1, 1, 2, 2, 3, 3]);
    expect(Object.keys(QMSUM_DOMAINS)).toEqual(["1", "2", "3"]);
  });

  it("loads the meetings of a folder and of its train/val/test sub-folders, in name order; never a locomo folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "qmsum-"));
    dirs.push(dir);
    mkdirSync(join(dir, "train"));
    mkdirSync(join(dir, "test"));
    writeFileSync(join(dir, "train", "TS3004a.json"), JSON.stringify(meeting));
    writeFileSync(join(dir, "test", "Bed003.json"), JSON.stringify(meeting));
    writeFileSync(join(dir, "covid_4.json"), JSON.stringify(meeting));
    writeFileSync(join(dir, "notes.txt"), "not a meeting");
    const loaded = loadQmsum(dir);
    expect(loaded.map((c) => c.name)).toEqual(["Bed003", "TS3004a", "covid_4"]);
    expect(loaded.map((c) => c.questions[0]!.category)).toEqual([2, 1, 3]);
    mkdirSync(join(dir, "locomo"));
    writeFileSync(join(dir, "locomo", "ES2004a.json"), JSON.stringify(meeting));
    expect(loadQmsum(join(dir, "locomo"))).toEqual([]);
    expect(loadQmsum(join(dir, "absent"))).toEqual([]);
  });

  it("a sample is fixed by its seed and size, keeps each question's split, and takes everything when the limit exceeds the set", () => {
    const names = ["ES2002a", "ES2002b", "Bmr005", "covid_1"];
    const set = names.map((n) => toMeeting(n, { ...meeting, specific_query_list: Array.from({ length: 10 }, (_, i) => ({ query: `question ${i}?`, relevant_text_span: [[String(i), String(i)]] })) }));
    const a = sampleQuestions(set, 12).flatMap((c) => c.questions.map((q) => q.id));
    expect(a).toHaveLength(12);
    expect(sampleQuestions(set, 12).flatMap((c) => c.questions.map((q) => q.id))).toEqual(a);
    expect(sampleQuestions(set, 12, 2).flatMap((c) => c.questions.map((q) => q.id))).not.toEqual(a);
    expect(sampleQuestions(set, 12).flatMap((c) => c.questions).every((q) => q.split === splitOf(q.id))).toBe(true);
    expect(set.flatMap((c) => c.questions)).toHaveLength(4 * 9); // question 4 of each meeting marks a noise-only turn
    expect(sampleQuestions(set, 1_000).flatMap((c) => c.questions.map((q) => q.id))).toEqual(set.flatMap((c) => c.questions.map((q) => q.id)));
  });

  it("through the dialogue eval: shares of the evidence per budget, the recent window misses the early turns, recall and the baseline bring them back; per domain by name", async () => {
    const m = toMeeting("ES2004a", meeting);
    const q = m.questions[0]!; // rubber buttons → T1, T2
    const byMethod = Object.fromEntries(
      await Promise.all(DIALOGUE_METHODS.filter((x) => x.id !== "embedder").map(async (x) => [x.id, (await evaluateDialogue(m, [q], x, [300])).results[0]!] as const)),
    );
    expect(byMethod.recent!.ok[300]).toBe(false);
    expect(byMethod.recent!.share![300]).toBe(0);
    expect(byMethod.bm25!.ok[300]).toBe(true);
    expect(byMethod.recall!.ok[300]).toBe(true);
    expect(byMethod.recall!.share![300]).toBe(1);
    const run = await runDialogueEval([{ ...m, questions: m.questions.map((x) => ({ ...x, split: "dev" as const })) }], { split: "dev", methods: DIALOGUE_METHODS.filter((x) => x.id === "recent"), budgets: [300] });
    expect(renderDialogueCategories(run, 300, QMSUM_DOMAINS)).toContain("product (AMI) (n = 2)");
  });
});
