/**
 * Counting off the hot path (issue 31 item 3; fitWindow's per-call cost, issue 27): the units a
 * window has not counted yet are priced by the counter's proven upper bound (bytes bound tokens)
 * when that decides the same window as exact counts — and only then. The property test in
 * window-properties.test.ts compares whole agent loops; these are the cases one by one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContentBlock, Message } from "../../contracts/generated/message.js";
import { getTokenCounter, type TokenCounter } from "../../modules/tokens/index.js";
import { utf8Length } from "../../modules/tokens/token-counter.js";
import { WindowAssembler, type WindowCounter } from "../../modules/window/index.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { assistant, call, result, system, user } from "./builders.js";

const counter = getTokenCounter("gpt-4o");
/** Any UTF-16 code units, lone surrogates included. */
const utf16 = () => fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
const exactOnly: WindowCounter = { ...counter, boundMessage: undefined };

/** A turn of about `words` words of prose (≈ 1 token per word, ≈ 6 bytes per word). */
function turn(k: number, words: number): Message[] {
  const text = Array.from({ length: words }, (_, i) => `word${(i * 7 + k) % 50}`).join(" ");
  return [user(`u${k}`, `question ${k}: ${text}`), call(`c${k}`, [`call${k}`]), result(`r${k}`, `call${k}`, text), assistant(`a${k}`, `answer ${k}`)];
}

/** The same 30-turn history in two assemblers, one window each at 3,000 tokens: one counter with its bound, one without. */
function twoAssemblers(): { bounded: WindowAssembler; exact: WindowAssembler; budget: number } {
  const history = [system("s"), ...Array.from({ length: 30 }, (_, k) => turn(k, 60)).flat()];
  const bounded = new WindowAssembler(history);
  const exact = new WindowAssembler(history);
  const budget = 3_000;
  bounded.assemble({ budget, counter });
  exact.assemble({ budget, counter: exactOnly });
  return { bounded, exact, budget };
}

describe("windows priced by upper bounds", () => {
  it("a kept cut is decided on bounds: the new messages are not counted until idle work or a report's figure asks", () => {
    const assembler = new WindowAssembler([system("s"), ...Array.from({ length: 30 }, (_, k) => turn(k, 60)).flat()]);
    const budget = 3_000;
    const first = assembler.assemble({ budget, counter });
    expect(first.report.cutReason).toBe("recut");
    let counted = 0;
    const counting: WindowCounter = { ...counter, countMessage: (m) => (counted++, counter.countMessage(m)) };
    // The same counter object across calls: the ledger is per counter.
    const again = new WindowAssembler([system("s"), ...Array.from({ length: 30 }, (_, k) => turn(k, 60)).flat()]);
    again.assemble({ budget, counter: counting });
    const fresh = { role: "user", content: "one more short question", metadata: { id: "late" } } satisfies Message;
    again.append(fresh);
    counted = 0;
    const window = again.assemble({ budget, counter: counting });
    expect(window.report.cutReason).toBe("kept");
    expect(again.pending).toBe(1);
    // Only the fixed parts were counted (cached): the new message was priced, not tokenized.
    expect(counted).toBeLessThanOrEqual(2);
    expect(window.report.windowTokens).toBe(counter.countRequest(window.messages));
    again.settle();
    expect(again.pending).toBe(0);
  });

  it("a priced report read later (after more messages, a truncation) gives the figures of its own window", () => {
    const { bounded, exact, budget } = twoAssemblers();
    const late = user("late", "and one more thing to look at");
    bounded.append(late);
    exact.append(late);
    const priced = bounded.assemble({ budget, counter });
    const reference = exact.assemble({ budget, counter: exactOnly });
    expect(bounded.pending).toBe(1);
    // The history moves on before anyone reads the first report.
    for (const m of turn(99, 80)) bounded.append(m);
    bounded.assemble({ budget, counter });
    bounded.truncate(10);
    bounded.assemble({ budget, counter });
    expect(priced.report.windowTokens).toBe(reference.report.windowTokens);
    expect(priced.report.windowTokens).toBe(counter.countRequest(priced.messages));
    expect(priced.report.historyTokens).toBe(reference.report.historyTokens);
    expect(priced.report.historyTokensExact).toBe(reference.report.historyTokensExact);
    expect(JSON.parse(JSON.stringify(priced.report)).windowTokens).toBe(reference.report.windowTokens);
  });

  it("never keeps a cut on bounds when exact counts would fit the whole history (a larger budget arrived)", () => {
    const history = [system("s"), ...Array.from({ length: 12 }, (_, k) => turn(k, 40)).flat()];
    const a = new WindowAssembler(history);
    const b = new WindowAssembler(history);
    const small = 1_500;
    expect(a.assemble({ budget: small, counter }).report.cutReason).toBe("recut");
    b.assemble({ budget: small, counter: exactOnly });
    // A message whose bytes are many times its tokens: its bound is far above its count.
    const repetitive: Message = { role: "user", content: "ha".repeat(150), metadata: { id: "ha" } };
    a.append(repetitive);
    b.append(repetitive);
    const exactTokens = counter.countRequest([...history, repetitive]);
    const boundTokens = exactTokens - counter.countMessage(repetitive) + counter.boundMessage(repetitive)!;
    // A budget the whole history fits exactly (θ = 0.9), but not by its bound.
    const budget = Math.ceil(exactTokens / 0.9) + 10;
    expect(boundTokens).toBeGreaterThan(0.9 * budget);
    const priced = a.assemble({ budget, counter });
    const exact = b.assemble({ budget, counter: exactOnly });
    expect(exact.report.cutReason).toBe("fits");
    expect(priced.report.cutReason).toBe("fits");
    expect(priced.messages).toEqual(exact.messages);
  });

  it("in a loop with no idle time, priced units do not pile up: each window counts what the earlier ones priced, and prices at most the two newest", () => {
    const { bounded, exact, budget } = twoAssemblers();
    let priced = 0;
    for (let k = 0; k < 12; k++) {
      const next = user(`more${k}`, `one more short question ${k}`);
      bounded.append(next);
      exact.append(next);
      const a = bounded.assemble({ budget, counter });
      const b = exact.assemble({ budget, counter: exactOnly });
      // Never settled in between: still at most the newest two priced, and the same window.
      expect(bounded.pending).toBeLessThanOrEqual(2);
      expect(a.messages).toEqual(b.messages);
      expect(a.report.windowTokens).toBe(b.report.windowTokens);
      if (Object.getOwnPropertyDescriptor(a.report, "windowTokens")?.get) priced++;
    }
    expect(priced).toBeGreaterThan(6);
  });

  it("a counter without a bound (a caller's tokenizer) counts every message before deciding", () => {
    const custom = getTokenCounter("gpt-4o", { tokenizer: { encoding: "words", count: (t) => t.split(/\s+/).filter(Boolean).length } });
    expect(custom.boundMessage(user("x", "a b c"))).toBeUndefined();
    const assembler = new WindowAssembler([system("s"), ...Array.from({ length: 20 }, (_, k) => turn(k, 60)).flat()]);
    assembler.assemble({ budget: 2_000, counter: custom });
    assembler.append(user("late", "one more"));
    assembler.assemble({ budget: 2_000, counter: custom });
    expect(assembler.pending).toBe(0);
  });

  it(`boundMessage is never below countMessage (random text, unicode, blocks, tool calls; ${propertyRuns(300)} cases)`, () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), utf16(), fc.constantFrom("ha".repeat(500), "😀".repeat(40), "\ud800 lone"));
    const block = fc.oneof(text.map((t): ContentBlock => ({ type: "text", text: t })), text.map((t): ContentBlock => ({ type: "thinking", thinking: t })));
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom("user", "assistant", "system"), content: text }) as fc.Arbitrary<Message>,
      fc.record({ role: fc.constant("user"), content: fc.array(block, { minLength: 1, maxLength: 4 }) }) as fc.Arbitrary<Message>,
      fc.record({ role: fc.constant("tool"), tool_call_id: fc.constant("c1"), name: fc.constant("read_file"), content: text }) as fc.Arbitrary<Message>,
      fc.tuple(text, text).map(([name, args]): Message => ({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: name || "f", arguments: args } }] })),
    );
    const counters: TokenCounter[] = [counter, getTokenCounter("claude-sonnet-4-5"), getTokenCounter("gpt-4")];
    fc.assert(
      fc.property(message, (m) => {
        for (const c of counters) expect(c.boundMessage(m)!).toBeGreaterThanOrEqual(c.countMessage(m));
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("utf8Length is the byte length an encoder writes", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), utf16()), (t) => {
        expect(utf8Length(t)).toBe(new TextEncoder().encode(t).length);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
