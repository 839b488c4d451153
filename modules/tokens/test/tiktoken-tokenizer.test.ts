/**
 * The built-in tokenizer: exact on ordinary text, and linear (not quadratic, never crashing)
 * on long runs without spaces — Japanese prose, base64, a line of "=====", a huge indent.
 */
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getTiktokenTokenizer } from "../index.js";
import { countInRuns, MAX_RUN } from "../tiktoken-tokenizer.js";

const tiktoken = createRequire(import.meta.url)("tiktoken") as {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
};
const encoders = { o200k_base: tiktoken.get_encoding("o200k_base"), cl100k_base: tiktoken.get_encoding("cl100k_base") };
/** tiktoken itself, uncut (only for inputs it handles in reasonable time). */
const exact = (encoding: keyof typeof encoders, text: string) => encoders[encoding].encode_ordinary(text).length;
const o200k = getTiktokenTokenizer("o200k_base");

describe("exact where runs are short", () => {
  it("long prose and code count exactly like tiktoken itself", () => {
    const prose = "The quick brown fox jumps over the lazy dog; it was not amused. ".repeat(400);
    const code = "export function add(a: number, b: number): number {\n  return a + b;\n}\n".repeat(300);
    for (const encoding of ["o200k_base", "cl100k_base"] as const) {
      expect(getTiktokenTokenizer(encoding).count(prose)).toBe(exact(encoding, prose));
      expect(getTiktokenTokenizer(encoding).count(code)).toBe(exact(encoding, code));
    }
  });

  it("random text with words under the cut length counts exactly", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }), (words) => {
        const text = words.join(" ");
        fc.pre(!/\S{256,}|\s{256,}/.test(text));
        expect(o200k.count(text)).toBe(exact("o200k_base", text));
      }),
      { numRuns: 300 },
    );
  });
});

describe("long runs are cut: linear time, a slight overcount", () => {
  // How long counting takes is the bench's to measure; here, that it finishes (the test timeout
  // guards against the quadratic blow-up) and what it returns.
  it("1 MB of one letter (which crashes tiktoken's WASM) is counted", () => {
    expect(o200k.count("a".repeat(1_000_000))).toBeGreaterThan(100_000);
  });

  it("Japanese without spaces: within 1 % above the exact count", () => {
    const japanese = "日本語の文章です。".repeat(600); // 5,400 characters, one run
    const counted = o200k.count(japanese);
    const truth = exact("o200k_base", japanese);
    expect(counted).toBeGreaterThanOrEqual(truth);
    expect(counted).toBeLessThanOrEqual(truth * 1.01);
  });

  it("emoji runs are never cut inside a surrogate pair", () => {
    const emoji = "🎉".repeat(3_000);
    expect(o200k.count(emoji)).toBe(exact("o200k_base", emoji));
  });

  it("countInRuns cuts only inside runs longer than MAX_RUN, and loses no character", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("x".repeat(700), " ".repeat(300), "🎉".repeat(200), "\n")), { maxLength: 12 }),
        (parts) => {
          const text = parts.join("");
          fc.pre(text.length > 0);
          const segments: string[] = [];
          countInRuns(text, (segment) => {
            segments.push(segment);
            return 0;
          });
          expect(segments.join("")).toBe(text);
          for (const segment of segments) {
            expect(/\S{257,}|\s{257,}/u.test(segment), JSON.stringify(segment.slice(0, 30))).toBe(false);
            expect(/^[\udc00-\udfff]/.test(segment)).toBe(false);
          }
          if (!/\S{257,}|\s{257,}/.test(text)) expect(segments).toHaveLength(1);
        },
      ),
      { numRuns: 500 },
    );
    expect(MAX_RUN).toBe(256);
  });
});
