import { describe, expect, it } from "vitest";
import type { SearchHit } from "@amplifier-ts/contracts";
import { answerTypeOf, holdsAnswerType, rankForRecall } from "../../modules/search/recall-ranking.js";
import { questionClauses, recallQuery } from "../../modules/search/recall-query.js";
import { tokenize } from "../../modules/search/tokenizer.js";
import { ExtractiveSummarizer } from "../../modules/summarizers/index.js";
import { growsLinearly } from "../support/linear-time.js";

/**
 * Recall runs its regular expressions on stored and user text on every new prompt: none may be
 * super-linear (issue 14: a window over 2,400 messages with 240 padded ones took 19–40 s). Each
 * shape below is hostile to one kind of backtracking — long runs of white space, of a repeated
 * token, of separators — with a word before it and no match after it. Time at 16× the size must
 * stay within 64× (linear ≈ 16×, quadratic ≈ 256×; at 8× the regexes this replaced measured
 * 56–171×, and a quadratic control below proves the check can fail).
 */
const SHAPES: Record<string, (n: number) => string> = {
  "spaces": (n) => `ask${" ".repeat(n)}x`,
  "newlines": (n) => `ask${"\n".repeat(n)}x`,
  "spaces and tabs": (n) => `owned by${" \t".repeat(n / 2)}!`,
  "lowercase word then spaces": (n) => `${"a".repeat(n / 2)}${" ".repeat(n / 2)}x`,
  "repeated words": (n) => "word ".repeat(n / 5),
  "repeated spaced dashes": (n) => "a -".repeat(n / 3),
  "repeated hyphenated token": (n) => "AA1-".repeat(n / 4),
  "repeated capitalised words": (n) => "Aa ".repeat(n / 3),
  "repeated commas": (n) => "a, ".repeat(n / 3),
  "repeated colons": (n) => "a: ".repeat(n / 3),
  "digits and commas": (n) => "1,".repeat(n / 2),
};
const SIZE = 1_000;

function expectLinear(name: string, run: (n: number) => unknown): void {
  const { linear, ratios } = growsLinearly(run, SIZE);
  expect(linear, `${name}: time at 16× the input was ${ratios.join("×, ")}× the time at 1× (bound 64×)`).toBe(true);
}

describe("the growth check", () => {
  it("fails a quadratic regex (a run of spaces never followed by the x it looks for)", () => {
    const { linear, ratios } = growsLinearly((n) => / +x/.test(" ".repeat(n)), SIZE, { attempts: 1 });
    expect(linear, `quadratic control measured ${ratios.join("×")}`).toBe(false);
  });
});

describe("recall's regular expressions are linear on hostile text", () => {
  for (const [shape, text] of Object.entries(SHAPES)) {
    it(`question clauses and the recall query: ${shape}`, () => {
      expectLinear(shape, (n) => {
        questionClauses(text(n));
        return recallQuery(`${text(n)} Who owns invoicing now?`);
      });
    });

    it(`answer types (a name, a date, a number, a decision, a preference): ${shape}`, () => {
      expectLinear(shape, (n) => {
        const t = text(n);
        answerTypeOf(t);
        return ["person", "datetime", "number", "decision", "preference"].map((type) => holdsAnswerType(t, type as "person"));
      });
    });

    it(`tokenizer: ${shape}`, () => {
      expectLinear(shape, (n) => tokenize(text(n)));
    });

    it(`extractive summarizer: ${shape}`, async () => {
      const summarizer = new ExtractiveSummarizer();
      // summarize() is async only at its boundary: the extraction under test runs synchronously
      // before its first await, so timing the call times the regular expressions.
      expectLinear(shape, (n) => summarizer.summarize([{ role: "user", content: text(n) }], { maxTokens: 50 }));
    });
  }

  it("ranking a pool of padded messages grows linearly with the padding", () => {
    const pool = (n: number): SearchHit[] =>
      Array.from({ length: 20 }, (_, i) => ({
        id: `m${i}`,
        index: i,
        score: 1 + i / 100,
        terms: ["invoicing"],
        message: { role: "assistant", content: `ask${" ".repeat(n / 20)}Dmitri owns invoicing ${i} — since${"\n".repeat(n / 20)}x` },
      }));
    expectLinear("padded pool", (n) => rankForRecall("Who owns invoicing now?", pool(n), 8));
  });
});
