import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { isSessionHeader } from "../../modules/search/session-header.js";
import { bm25Window, DIALOGUE_METHODS, evaluateDialogue } from "./recall-dialogue-eval.js";
import { evidenceIds, historyFor, loadRealtalk, splitOf, toConversation } from "./realtalk.js";

// A conversation written for this test in REALTALK's file format (no REALTALK data is kept in the
// repository: test/eval/data/realtalk/README.md).
const chat = {
  name: { speaker_1: "Ana", speaker_2: "Ben" },
  session_1_date_time: "29.12.2023, 22:42:04",
  session_1: [
    { clean_text: "Hi Ben! I adopted a greyhound called Biscuit today", speaker: "Ana", date_time: "29.12.2023, 22:42:04", dia_id: "D1:1" },
    { clean_text: "No way, congrats! How old is Biscuit?", speaker: "Ben", date_time: "29.12.2023, 22:43:00", dia_id: "D1:2" },
    { clean_text: "She is four, a retired racer", speaker: "Ana", date_time: "29.12.2023, 22:44:00", dia_id: "D1:3" },
    { clean_text: "", speaker: "Ana", date_time: "29.12.2023, 22:45:00", dia_id: "D1:4" },
  ],
  session_2_date_time: "02.01.2024, 09:00:00",
  session_2: Array.from({ length: 60 }, (_, i) => ({ clean_text: `small talk number ${i} about the weather and the week`, speaker: i % 2 ? "Ben" : "Ana", date_time: "02.01.2024, 09:00:00", dia_id: `D2:${i + 1}` })),
  qa: [
    { question: "What is the name of Ana's dog?", answer: "Biscuit", evidence: ["D1:1"], category: 1 },
    { question: "How old is Biscuit?", answer: "four", evidence: ["D1:2-D1:3"], category: 1 },
    { question: "What did they say in the image?", answer: "?", evidence: ["D9:1"], category: 1 },
    { question: "No evidence", answer: "?", evidence: [], category: 3 },
  ],
};

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("REALTALK loader and the dialogue eval (issue 19)", () => {
  it("reads a conversation as a history: date headers, speakers as user/assistant with names, ids, timestamps; questions with their evidence", () => {
    const c = toConversation("Chat_1_Ana_Ben", chat);
    expect(c.speakers).toEqual(["Ana", "Ben"]);
    expect(c.messages[0]).toMatchObject({ role: "user", content: "[Session 1 · Friday 29 December 2023]", metadata: { id: "S1" } });
    expect(isSessionHeader(c.messages[0]!)).toBe(true);
    expect(c.messages[1]).toMatchObject({ role: "user", name: "Ana", metadata: { id: "D1:1", timestamp: "2023-12-29T22:42:04.000Z" } });
    expect(c.messages[2]).toMatchObject({ role: "assistant", name: "Ben", metadata: { id: "D1:2" } });
    expect(c.messages.some((m) => m.metadata?.id === "D1:4")).toBe(false); // empty text: not a message
    expect(c.messages).toHaveLength(1 + 3 + 1 + 60);
    expect(c.questions.map((q) => q.evidence)).toEqual([["D1:1"], ["D1:2", "D1:3"]]);
    expect(c.dropped).toBe(2);
    const history = historyFor(c, c.questions[0]!);
    expect(history.at(-1)).toMatchObject({ role: "user", content: "What is the name of Ana's dog?" });
  });

  it("evidence entries: single ids, lists, ranges, stray punctuation", () => {
    expect(evidenceIds("D3:12")).toEqual(["D3:12"]);
    expect(evidenceIds("D5:12;D5:16")).toEqual(["D5:12", "D5:16"]);
    expect(evidenceIds("D13:4. D14:4")).toEqual(["D13:4", "D14:4"]);
    expect(evidenceIds("D12:3-D12:5")).toEqual(["D12:3", "D12:4", "D12:5"]);
    expect(evidenceIds("D5:3.")).toEqual(["D5:3"]);
  });

  it("the split is a fixed rule of the question id (about a third held out)", () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => `Chat_${i % 10}#${i}`);
    const held = ids.filter((id) => splitOf(id) === "heldout").length;
    expect(held / ids.length).toBeGreaterThan(0.3);
    expect(held / ids.length).toBeLessThan(0.37);
    expect(ids.map(splitOf)).toEqual(ids.map(splitOf));
  });

  it("loads Chat_*.json files in order and never a locomo folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "realtalk-"));
    dirs.push(dir);
    writeFileSync(join(dir, "Chat_2_Ana_Ben.json"), JSON.stringify(chat));
    writeFileSync(join(dir, "Chat_10_Ana_Ben.json"), JSON.stringify(chat));
    writeFileSync(join(dir, "notes.json"), "{}");
    expect(loadRealtalk(dir).map((c) => c.name)).toEqual(["Chat_2_Ana_Ben", "Chat_10_Ana_Ben"]);
    mkdirSync(join(dir, "locomo"));
    writeFileSync(join(dir, "locomo", "Chat_1_X_Y.json"), JSON.stringify(chat));
    expect(loadRealtalk(join(dir, "locomo"))).toEqual([]);
    expect(loadRealtalk(join(dir, "absent"))).toEqual([]);
  });

  it("the baseline fills the budget with BM25 hits ±1 message; the recent window misses old evidence, recall brings it back", async () => {
    const c = toConversation("Chat_1_Ana_Ben", chat);
    const q = c.questions[1]!; // "How old is Biscuit?" → D1:2, D1:3
    const history = historyFor(c, q);
    const index = new HistorySearchIndex(() => history, { speakers: false });
    const ids = await bm25Window(index, history, 2_000);
    expect(ids.has("D1:2") && ids.has("D1:3")).toBe(true);
    const tight = await bm25Window(index, history, 40);
    expect(tight.size).toBe(1); // the question alone: no hit group fits
    const byMethod = Object.fromEntries(
      await Promise.all(DIALOGUE_METHODS.filter((m) => m.id !== "embedder").map(async (m) => [m.id, (await evaluateDialogue(c, [q], m, [300])).results[0]!.ok[300]] as const)),
    );
    expect(byMethod).toEqual({ recent: false, bm25: true, recall: true });
  });
});
