/**
 * Long ASCII text is cut into tiktoken's pieces by V8 and counted piece by piece from a cache
 * (modules/tokens/ascii-piece-counter.ts). The count must be tiktoken's own, to the token, for both
 * encodings: checked against tiktoken on random text drawn from the characters that decide the
 * pieces (case, digits, apostrophes and contractions, punctuation, every ASCII whitespace and
 * control character) and on realistic tool output.
 */
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAsciiPieceCounter, MAX_CACHED_PIECES, MIN_PIECEWISE_LENGTH } from "../ascii-piece-counter.js";
import { getTiktokenTokenizer } from "../index.js";

const tiktoken = createRequire(import.meta.url)("tiktoken") as {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
};
const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const encoders = { o200k_base: tiktoken.get_encoding("o200k_base"), cl100k_base: tiktoken.get_encoding("cl100k_base") };
const exact = (encoding: (typeof ENCODINGS)[number], text: string) => encoders[encoding].encode_ordinary(text).length;
const runs = Number(process.env.AMPLIFIER_PROPERTY_RUNS ?? 1000);

/** Fragments that sit on the pieces' boundaries: contractions in every case, digit runs, slashes before newlines, mixed case. */
const fragment = fc.oneof(
  fc.constantFrom("'s", "'S", "'t", "'re", "'RE", "'Ve", "'m", "'ll", "'LL", "'d", "'D", "'x", "''", "can't", "I'M", "you're"),
  fc.constantFrom(" ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f", " \n ", "\n\n", "   \n", "/\n", "//\n", ".\n", "\u0000", "\u001b", "\u001f", "\u007f"),
  fc.constantFrom("HTTPServer", "getHTTPResponse", "iOS", "XMLHttpRequest", "ABC", "abc", "Abc", "aBC", "x", "Z"),
  fc.stringMatching(/^[0-9]{1,9}$/),
  fc.stringMatching(/^[!-/:-@[-`{-~]{1,6}$/),
  fc.string({ unit: fc.constantFrom(..."aZ0 '\n\t/.-_:;,!?\"(){}[]<>=+*&^%$#@~`|\\\r\v\f".split("")), maxLength: 12 }),
  fc.string({ unit: "binary-ascii", maxLength: 8 }),
);
const asciiText = fc.array(fragment, { minLength: 1, maxLength: 160 }).map((parts) => parts.join(""));

describe("the piecewise count is tiktoken's own", () => {
  for (const encoding of ENCODINGS) {
    it(`${encoding}: random ASCII text (${runs} cases)`, () => {
      const counter = createAsciiPieceCounter(encoding, (piece) => exact(encoding, piece))!;
      fc.assert(
        fc.property(asciiText, (text) => {
          const long = text.length >= MIN_PIECEWISE_LENGTH ? text : text.padEnd(MIN_PIECEWISE_LENGTH, text || " ");
          expect(counter.count(long)).toBe(exact(encoding, long));
        }),
        { numRuns: runs },
      );
    });

    it(`${encoding}: lines mixing ASCII and other scripts, whitespace and marks (${runs} cases)`, () => {
      const counter = createAsciiPieceCounter(encoding, (piece) => exact(encoding, piece))!;
      const unicode = fc.constantFrom("é", "naïve", "Ünïcödé", "日本語", "✓", "🎉", "\u00a0", "\u0085", "\u2028", "\u3000", "\ufeff", "e\u0301", "Ǆ", "ǅ", "ſ", "K", "’s", "—", "\u200b", "١٢٣", "Ⅻ");
      const line = fc.array(fc.oneof(fragment, unicode), { minLength: 0, maxLength: 12 }).map((parts) => parts.join(""));
      fc.assert(
        fc.property(fc.array(line, { minLength: 2, maxLength: 40 }), fc.constantFrom("\n", "\r\n", "\n\n", " \n"), (lines, newline) => {
          const text = lines.join(newline).padEnd(MIN_PIECEWISE_LENGTH, "x");
          const counted = counter.count(text);
          if (counted !== undefined) expect(counted).toBe(exact(encoding, text));
        }),
        { numRuns: runs },
      );
    });

    it(`${encoding}: tool output, code, logs and prose through the tokenizer`, () => {
      const grep = Array.from({ length: 400 }, (_, i) => `src/module${i % 37}/file_${i}.ts:${i * 7}:  const value${i} = await fetchUser(id_${i % 13}, { retry: ${i % 5} }); // TODO: don't retry ${i}'s`).join("\n");
      const json = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `User ${i}`, email: `user${i}@example.com`, tags: ["a", "B", "cD"], ok: i % 2 === 0 })), null, 2);
      const log = Array.from({ length: 300 }, (_, i) => `2026-11-26T14:${String(i % 60).padStart(2, "0")}:00.${i}Z ERROR [worker-${i % 4}] HTTPError 503: upstream timed out after 30000ms (attempt ${i % 3}/3)\r`).join("\n");
      const prose = "It's the user's turn; they'll say what they'd like, and we've IT'S WE'VE listened.  \n\n".repeat(100);
      const tokenizer = getTiktokenTokenizer(encoding);
      for (const text of [grep, json, log, prose]) expect(tokenizer.count(text)).toBe(exact(encoding, text));
    });
  }
});

describe("what it leaves to tiktoken, and its cache", () => {
  it("short text, and text outside ASCII without a line break to cut at, are not counted here", () => {
    const counter = createAsciiPieceCounter("o200k_base", (piece) => exact("o200k_base", piece))!;
    expect(counter.count("short text")).toBeUndefined();
    expect(counter.count("a ".repeat(200) + "é")).toBeUndefined();
    expect(counter.count("a ".repeat(200) + "\u0085")).toBeUndefined();
    // Newlines, but none before an ASCII character that is not whitespace or "/".
    expect(counter.count("é\n ".repeat(100) + "é\n/".repeat(100) + "é\n\n")).toBeUndefined();
    expect(counter.count("a ".repeat(200))).toBe(exact("o200k_base", "a ".repeat(200)));
  });

  it("text outside ASCII is cut into lines: the ASCII lines go piece by piece, the others to tiktoken whole", () => {
    const calls: string[] = [];
    const counter = createAsciiPieceCounter("o200k_base", (piece) => (calls.push(piece), exact("o200k_base", piece)))!;
    const text = "plain ascii line with words\n".repeat(20) + "naïve café ✓ done\n" + "more ascii\n".repeat(10);
    expect(counter.count(text)).toBe(exact("o200k_base", text));
    expect(calls).toContain("naïve café ✓ done\n");
    expect(calls.every((c) => c.length < 40)).toBe(true);
  });

  it("an encoding without an ASCII pattern gets no piece counter", () => {
    expect(createAsciiPieceCounter("p50k_base", () => 1)).toBeUndefined();
  });

  it("a repeated piece is encoded once; a full cache is emptied and keeps counting exactly", () => {
    const encoded: string[] = [];
    const counter = createAsciiPieceCounter("o200k_base", (piece) => (encoded.push(piece), exact("o200k_base", piece)))!;
    const text = "alpha beta gamma ".repeat(50);
    expect(counter.count(text)).toBe(exact("o200k_base", text));
    expect(new Set(encoded).size).toBe(encoded.length);
    const before = encoded.length;
    expect(counter.count(text)).toBe(exact("o200k_base", text));
    expect(encoded.length).toBe(before);
    // Letters only: every word is one piece of its own.
    const letters = (i: number) => i.toString(26).replace(/[0-9a-p]/g, (c) => String.fromCharCode(97 + parseInt(c, 26)));
    const many = Array.from({ length: MAX_CACHED_PIECES + 10 }, (_, i) => ` w${letters(i)}`).join("");
    const distinct = new Set(encoded).size;
    expect(counter.count(many)).toBe(exact("o200k_base", many));
    expect(new Set(encoded).size - distinct).toBeGreaterThan(MAX_CACHED_PIECES);
    expect(counter.count(text)).toBe(exact("o200k_base", text));
  });
});
