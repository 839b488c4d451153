/** The excerpt of a spilled input (modules/context-manager/spill-excerpt.ts): what it keeps and how it cuts. */
import { describe, expect, it } from "vitest";
import { excerptOf, queryTerms } from "../../modules/context-manager/spill-excerpt.js";
import { copyWithExcerpt, spilledText } from "../../modules/context-manager/spilled-history.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { bigLog, NEEDLE } from "./spill-fixtures.js";

const counter = getTokenCounter("gpt-4o");
const countText = (t: string) => counter.countText(t);
const HEADER = "[Spilled: test header]";

/** True when `text` holds a lone surrogate (a cut through a pair). */
const hasLoneSurrogate = (text: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe("excerptOf", () => {
  it("keeps the head, the tail and the line matching the query, in that order, within the token budget", () => {
    const log = bigLog(500_000);
    const excerpt = excerptOf({ text: log, terms: queryTerms(["why did order ord-77123 fail?"]), maxTokens: 1_500, countText, header: HEADER });
    expect(countText(excerpt)).toBeLessThanOrEqual(1_500);
    expect(excerpt.startsWith(`${HEADER}\n`)).toBe(true);
    const head = excerpt.indexOf(log.slice(0, 80));
    const match = excerpt.indexOf(NEEDLE);
    const tail = excerpt.indexOf(log.slice(-80));
    expect(head).toBeGreaterThan(0);
    expect(match).toBeGreaterThan(head);
    expect(tail).toBeGreaterThan(match);
    // The matching line carries its line number and character offset in the whole text.
    const offset = log.indexOf(NEEDLE);
    const line = log.slice(0, offset).split("\n").length;
    expect(excerpt).toContain(`line ${line} (offset ${offset}): ${NEEDLE}`);
  });

  it("rare terms outrank common ones: an id found once beats a word on every line", () => {
    const log = bigLog(200_000);
    const excerpt = excerptOf({ text: log, terms: ["request", "ord-77123"], maxTokens: 600, countText, header: HEADER });
    expect(excerpt).toContain(NEEDLE);
  });

  it("without matches: head and tail only, still within budget", () => {
    const log = bigLog(100_000);
    const excerpt = excerptOf({ text: log, terms: ["nothing-like-this"], maxTokens: 400, countText, header: HEADER });
    expect(countText(excerpt)).toBeLessThanOrEqual(400);
    expect(excerpt).not.toContain("lines matching");
    expect(excerpt).toContain(log.slice(0, 40));
    expect(excerpt).toContain(log.slice(-40));
  });

  it("respects every budget it is given (exact counts, text of many scripts)", () => {
    const text = Array.from({ length: 4_000 }, (_, i) => `${i} Grüße 世界 😀 ломаный ${"ab".repeat(i % 40)} مرحبا`).join("\n");
    for (const maxTokens of [64, 100, 257, 1_000, 3_000]) {
      const excerpt = excerptOf({ text, terms: ["世界", "2500"], maxTokens, countText, header: "[h]" });
      expect(countText(excerpt), `maxTokens ${maxTokens}`).toBeLessThanOrEqual(maxTokens);
    }
  });

  it("never cuts through a surrogate pair, at the head, the tail or a long matching line", () => {
    const emoji = "😀".repeat(30_000);
    const text = `${emoji}\n${"🎉".repeat(2_000)} needle-42 ${"🎉".repeat(2_000)}\n${emoji}`;
    for (const maxTokens of [200, 333, 800, 1_201]) {
      const excerpt = excerptOf({ text, terms: ["needle-42"], maxTokens, countText, header: HEADER });
      expect(hasLoneSurrogate(excerpt), `maxTokens ${maxTokens}`).toBe(false);
      expect(countText(excerpt)).toBeLessThanOrEqual(maxTokens);
    }
    expect(excerptOf({ text, terms: ["needle-42"], maxTokens: 800, countText, header: HEADER })).toContain("needle-42");
  });

  it("a text that fits whole is returned whole after the header", () => {
    expect(excerptOf({ text: "short\ntext", terms: [], maxTokens: 200, countText, header: HEADER })).toContain("short\ntext");
  });
});

describe("queryTerms", () => {
  it("lowercases, drops stop words and short words, keeps ids and their parts", () => {
    expect(queryTerms(["Why did order ORD-77123 fail at 04:12?", '{"path":"/var/log/app.log"}'])).toEqual(["order", "ord-77123", "ord", "77123", "fail", "04:12", "04", "12", "path", "/var/log/app.log".slice(1), "var", "log", "app"]);
  });
  it("is bounded: at most 32 terms", () => {
    expect(queryTerms([Array.from({ length: 100 }, (_, i) => `word${i}x`).join(" ")])).toHaveLength(32);
  });
});

describe("the window's copy of a spilled message", () => {
  it("keeps ids, pairing and non-text blocks; the largest text part holds the excerpt, other long ones a marker", () => {
    const long = "x".repeat(5_000);
    const message = {
      role: "user" as const,
      content: [
        { type: "tool_result" as const, tool_use_id: "a", content: "small" },
        { type: "tool_result" as const, tool_use_id: "b", content: [{ type: "text" as const, text: long }, { type: "image" as const, source: { type: "url" as const, url: "https://x/y.png" } }] },
        { type: "text" as const, text: "y".repeat(300) },
      ],
      metadata: { id: "m1" },
    };
    expect(spilledText(message)).toBe(`small\n${long}\n${"y".repeat(300)}`);
    const copy = copyWithExcerpt(message, "EXCERPT", { handle: "spill-000000000000000000000000", tokens: 2_000, chars: 5_310 });
    expect(copy.metadata).toEqual({ id: "m1", window: { spilled: { handle: "spill-000000000000000000000000", tokens: 2_000, chars: 5_310 } } });
    expect(copy.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "small" },
      { type: "tool_result", tool_use_id: "b", content: [{ type: "text", text: "EXCERPT" }, { type: "image", source: { type: "url", url: "https://x/y.png" } }] },
      { type: "text", text: "[part of the spilled result spill-000000000000000000000000]" },
    ]);
  });
});
