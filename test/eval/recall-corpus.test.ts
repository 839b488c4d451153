import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import {
  contentWords,
  DISTANCE_BUCKETS,
  distanceBucket,
  FACT_KINDS,
  FACT_TEMPLATES,
  generateRecallConversation,
  wordsOf,
  type RecallConversation,
} from "./recall-corpus.js";

const SEEDS = [1001, 1002, 1003, 1004, 1005];
const sessions = new Map<number, RecallConversation>(SEEDS.map((seed) => [seed, generateRecallConversation({ seed })]));
const textOf = (m: Message | undefined) => String(m?.content ?? "");
const template = (key: string) => FACT_TEMPLATES.find((t) => t.key === key)!;
/** Every phrasing of a template rendered with a sample value. */
const statementsOf = (key: string) => [...template(key).state, ...(template(key).revise ?? [])].map((f) => f("VALUE"));

describe("recall corpus generator", () => {
  it("is deterministic per seed and differs between seeds", () => {
    const again = generateRecallConversation({ seed: 1001 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(sessions.get(1001)));
    expect(JSON.stringify(sessions.get(1002)!.messages)).not.toBe(JSON.stringify(sessions.get(1001)!.messages));
    const tiny = generateRecallConversation({ seed: 9, facts: 6, maxDistance: 120 });
    expect(JSON.stringify(generateRecallConversation({ seed: 9, facts: 6, maxDistance: 120 }))).toBe(JSON.stringify(tiny));
  });

  it("24 facts, 4 of each kind, each asked once; ids unique", () => {
    expect(FACT_TEMPLATES).toHaveLength(24);
    for (const kind of FACT_KINDS) expect(FACT_TEMPLATES.filter((t) => t.kind === kind), kind).toHaveLength(4);
    for (const { messages, questions } of sessions.values()) {
      expect(questions).toHaveLength(24);
      expect(new Set(questions.map((q) => q.fact)).size).toBe(24);
      expect(new Set(messages.map((m) => m.metadata?.id)).size).toBe(messages.length);
    }
  });

  it("every question's evidence (and stale statement) exists, is a user message, precedes it, and states the answer", () => {
    for (const { messages, questions } of sessions.values()) {
      const position = new Map(messages.map((m, i) => [m.metadata?.id, i]));
      for (const q of questions) {
        const at = position.get(q.id)!;
        expect(messages[at]!.role).toBe("user");
        expect(q.evidence).toHaveLength(1);
        for (const id of [...q.evidence, ...q.stale]) {
          expect(position.has(id), id).toBe(true);
          expect(position.get(id)!).toBeLessThan(at);
          expect(messages[position.get(id)!]!.role).toBe("user");
        }
        for (const id of q.stale) expect(position.get(id)!).toBeLessThan(position.get(q.evidence[0]!)!);
        expect(textOf(messages[position.get(q.evidence[0]!)!])).toContain(q.answer);
        // The question's own phrasing never gives the answer away.
        expect(template(q.fact).ask[q.forms.question]!).not.toContain(q.answer);
        expect(q.text).toContain(template(q.fact).ask[q.forms.question]!);
      }
    }
  });

  it("distances: 60–400 user turns, counted correctly, a third of the facts in each bucket", () => {
    for (const { messages, questions, turns } of sessions.values()) {
      const position = new Map(messages.map((m, i) => [m.metadata?.id, i]));
      expect(turns).toBe(messages.filter((m) => m.role === "user").length);
      for (const q of questions) {
        expect(q.distance).toBeGreaterThanOrEqual(60);
        expect(q.distance).toBeLessThanOrEqual(400);
        const between = messages.slice(position.get(q.evidence[0]!)! + 1, position.get(q.id)! + 1).filter((m) => m.role === "user").length;
        expect(between, q.fact).toBe(q.distance);
      }
      for (const bucket of DISTANCE_BUCKETS) expect(questions.filter((q) => distanceBucket(q.distance) === bucket.label), bucket.label).toHaveLength(8);
    }
    const all = [...sessions.values()].flatMap((s) => s.questions.map((q) => q.distance));
    expect(Math.max(...all)).toBeGreaterThanOrEqual(380);
    expect(Math.min(...all)).toBeLessThan(80);
    const tiny = generateRecallConversation({ seed: 3, facts: 6, minDistance: 60, maxDistance: 120 });
    expect(tiny.questions).toHaveLength(6);
    for (const q of tiny.questions) {
      expect(q.distance).toBeGreaterThanOrEqual(60);
      expect(q.distance).toBeLessThanOrEqual(120);
    }
  });

  it("paraphrase is partial for EVERY phrasing pair: the topic anchor shared, never all of the question's content words", () => {
    for (const t of FACT_TEMPLATES) {
      const anchor = t.anchors[0]!;
      const statements = statementsOf(t.key);
      for (const s of statements) expect(wordsOf(s), `${t.key}: ${s}`).toContain(anchor);
      for (const ask of t.ask) {
        expect(wordsOf(ask), `${t.key}: ${ask}`).toContain(anchor);
        const asked = contentWords(ask);
        for (const s of statements) {
          const stated = contentWords(s);
          expect([...asked].filter((w) => !stated.has(w)).length, `${ask} ⊆ ${s}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it("paraphrase is partial in the sessions: each question shares ≥ 1 anchor with its evidence, not all its content words", () => {
    for (const { messages, questions } of sessions.values()) {
      const byId = new Map(messages.map((m) => [m.metadata?.id, textOf(m)]));
      for (const q of questions) {
        const asked = template(q.fact).ask[q.forms.question]!;
        const stated = byId.get(q.evidence[0]!)!;
        expect(q.anchors.filter((a) => wordsOf(asked).includes(a) && wordsOf(stated).includes(a)).length, asked).toBeGreaterThan(0);
        const statedWords = contentWords(stated);
        expect([...contentWords(asked)].filter((w) => !statedWords.has(w)).length, asked).toBeGreaterThan(0);
      }
    }
  });

  it("several phrasings are actually used, for statements and questions; some statements and questions are embedded in requests", () => {
    const questionForms = new Map<string, Set<number>>();
    const statementForms = new Map<string, Set<number>>();
    let embedded = 0;
    for (const { questions } of sessions.values()) {
      expect(new Set(questions.map((q) => q.forms.question)).size).toBe(3);
      for (const q of questions) {
        (questionForms.get(q.fact) ?? questionForms.set(q.fact, new Set()).get(q.fact)!).add(q.forms.question);
        (statementForms.get(q.fact) ?? statementForms.set(q.fact, new Set()).get(q.fact)!).add(q.forms.statements[q.forms.statements.length - 1]!);
        if (q.embedded) embedded++;
      }
    }
    for (const t of FACT_TEMPLATES) {
      expect(questionForms.get(t.key)!.size, t.key).toBeGreaterThanOrEqual(2);
      expect(statementForms.get(t.key)!.size, t.key).toBeGreaterThanOrEqual(2);
    }
    const total = SEEDS.length * 24;
    expect(embedded).toBeGreaterThan(total * 0.1);
    expect(embedded).toBeLessThan(total * 0.6);
    // Distinct question texts across the seeds: far more than one per fact.
    expect(new Set([...sessions.values()].flatMap((s) => s.questions.map((q) => q.text))).size).toBeGreaterThan(60);
  });

  it("facts share topics: two people on payments (distinct names, distinct evidence), and `related` lists the other facts' statements", () => {
    for (const { messages, questions } of sessions.values()) {
      const byTopic = new Map<string, typeof questions>();
      for (const q of questions) byTopic.set(q.topic, [...(byTopic.get(q.topic) ?? []), q]);
      expect([...byTopic.values()].filter((qs) => qs.length >= 2).length).toBeGreaterThanOrEqual(7);
      const payments = byTopic.get("payments")!;
      expect(payments.map((q) => q.kind)).toEqual(["name", "name"]);
      expect(payments[0]!.answer).not.toBe(payments[1]!.answer);
      expect(payments[0]!.evidence[0]).not.toBe(payments[1]!.evidence[0]);
      const byId = new Map(messages.map((m) => [m.metadata?.id, textOf(m)]));
      for (const q of questions) {
        const others = questions.filter((o) => o.topic === q.topic && o.fact !== q.fact);
        expect(new Set(q.related)).toEqual(new Set(others.flatMap((o) => [...o.stale, ...o.evidence])));
        expect(q.related).not.toContain(q.evidence[0]);
        for (const id of q.related) expect(wordsOf(byId.get(id)!)).toContain(q.anchors[0]);
      }
    }
  });

  it("changed minds: the evidence is the latest revision; the superseded statements are `stale`", () => {
    let twoRevisions = 0;
    for (const { messages, questions } of sessions.values()) {
      const byId = new Map(messages.map((m) => [m.metadata?.id, textOf(m)]));
      const changed = questions.filter((q) => q.kind === "changed-mind");
      expect(changed).toHaveLength(4);
      for (const q of changed) {
        const t = template(q.fact);
        expect(q.stale.length).toBeGreaterThanOrEqual(1);
        expect(q.forms.statements).toHaveLength(q.stale.length + 1);
        if (q.stale.length === 2) twoRevisions++;
        const last = q.forms.statements[q.forms.statements.length - 1]!;
        expect(byId.get(q.evidence[0]!)).toContain(t.revise![last]!(q.answer));
        // The first statement is a `state` phrasing and holds a different value than the answer.
        const first = t.state[q.forms.statements[0]!]!;
        const prefix = first("\u0000").split("\u0000")[0]!;
        expect(byId.get(q.stale[0]!)).toContain(prefix);
        expect(byId.get(q.stale[0]!)).not.toContain(first(q.answer));
      }
      for (const q of questions.filter((q) => q.kind !== "changed-mind")) expect(q.stale).toEqual([]);
    }
    expect(twoRevisions).toBeGreaterThan(0);
  });

  it("distractors: every anchor also appears in filler user messages that hold no fact; tool calls and results mention topics; some results are long", () => {
    for (const { messages, questions } of sessions.values()) {
      const planted = new Set(questions.flatMap((q) => [q.id, ...q.evidence, ...q.stale, ...q.related]));
      const filler = messages.filter((m) => m.role === "user" && !planted.has(String(m.metadata?.id)));
      for (const q of questions) expect(filler.some((m) => wordsOf(textOf(m)).includes(q.anchors[0]!)), q.anchors[0]).toBe(true);
      const tools = messages.filter((m) => m.role === "tool").map(textOf);
      expect(tools.some((t) => t.split("\n").length >= 120)).toBe(true);
      const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments.toLowerCase());
      expect(new Set(calls).size).toBeGreaterThan(100);
      const topics = new Set(questions.map((q) => q.anchors[0]!));
      expect([...topics].filter((t) => calls.some((c) => wordsOf(c).includes(t))).length).toBeGreaterThanOrEqual(topics.size / 2);
    }
  });
});
