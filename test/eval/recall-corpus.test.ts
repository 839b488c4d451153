import { describe, expect, it } from "vitest";
import { contentWords, generateRecallConversation } from "./recall-corpus.js";

describe("recall corpus generator", () => {
  it("is deterministic per seed and differs between seeds", () => {
    const a = generateRecallConversation({ seed: 7 });
    const b = generateRecallConversation({ seed: 7 });
    const c = generateRecallConversation({ seed: 8 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a.messages)).not.toBe(JSON.stringify(c.messages));
  });

  it("every question's evidence exists before it, far away (≥ 60 turns), and every fact kind is asked", () => {
    for (const seed of [1001, 1002, 1003]) {
      const { messages, questions } = generateRecallConversation({ seed });
      const position = new Map(messages.map((m, i) => [m.metadata?.id, i]));
      expect(questions.length).toBeGreaterThanOrEqual(12);
      expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(["name", "number", "date", "preference", "decision", "changed-mind"]));
      for (const q of questions) {
        expect(q.evidence.length).toBeGreaterThan(0);
        for (const id of q.evidence) expect(position.get(id)!).toBeLessThan(position.get(q.id)!);
        expect(q.distance).toBeGreaterThanOrEqual(60);
        expect(messages[position.get(q.id)!]!.role).toBe("user");
      }
    }
  });

  it("paraphrase is partial: each question shares some content words with its evidence, never all", () => {
    const { messages, questions } = generateRecallConversation({ seed: 1001 });
    const byId = new Map(messages.map((m) => [m.metadata?.id, String(m.content)]));
    for (const q of questions) {
      const asked = contentWords(q.text);
      const stated = contentWords(q.evidence.map((id) => byId.get(id)).join(" "));
      const shared = [...asked].filter((w) => stated.has(w));
      expect(shared.length, q.text).toBeGreaterThan(0);
      expect(shared.length, q.text).toBeLessThan(asked.size);
    }
  });

  it("changed minds: the evidence is the revision, not the first statement", () => {
    const { messages, questions } = generateRecallConversation({ seed: 1001 });
    const byId = new Map(messages.map((m) => [m.metadata?.id, String(m.content)]));
    const changed = questions.filter((q) => q.kind === "changed-mind");
    expect(changed.length).toBe(2);
    for (const q of changed) expect(byId.get(q.evidence[0]!)).toMatch(/Actually|Changed my mind/);
  });

  it("distractors: the planted topics also appear in filler turns that hold no fact", () => {
    const { messages, questions } = generateRecallConversation({ seed: 1001 });
    const evidence = new Set(questions.flatMap((q) => q.evidence));
    const filler = messages.filter((m) => m.role === "user" && !evidence.has(String(m.metadata?.id)));
    for (const q of questions) {
      const anchor = q.anchors[0]!;
      expect(filler.some((m) => String(m.content).toLowerCase().includes(anchor)), anchor).toBe(true);
    }
  });
});
