import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TRUNCATION_MARKER_PATTERN, truncateText, truncationMarker } from "../../modules/window/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { chars } from "./builders.js";
import { propertyRuns } from "../../testing/property-runs.js";

const quarter = (t: string) => Math.ceil(t.length / 4);

describe("truncateText: head and tail kept, a marker saying how much was cut", () => {
  it("returns a text that fits as it is", () => {
    expect(truncateText("short", 10, quarter)).toEqual({ text: "short", keptChars: 5, tokens: 2 });
  });

  it("keeps the head and the tail and names the number of characters cut", () => {
    const text = "HEAD" + "-".repeat(10_000) + "TAIL";
    const cut = truncateText(text, 100, quarter);
    expect(cut.tokens).toBeLessThanOrEqual(100);
    expect(cut.text.startsWith("HEAD")).toBe(true);
    expect(cut.text.endsWith("TAIL")).toBe(true);
    expect(cut.text).toContain(truncationMarker(text.length - cut.keptChars));
    expect(cut.text).toMatch(TRUNCATION_MARKER_PATTERN);
    // uses the cap to within 1 %
    expect(cut.tokens).toBeGreaterThanOrEqual(99);
  });

  it("returns the marker alone when the cap is smaller than the marker", () => {
    const cut = truncateText(chars(5_000), 2, quarter);
    expect(cut.keptChars).toBe(0);
    expect(cut.text).toBe(truncationMarker(5_000));
  });

  it("fits the real tokenizer's count, tokenizing only about the cap's worth of text per probe", () => {
    const counter = getTokenCounter("gpt-4o");
    const text = chars(200_000, "log line");
    const probes: number[] = [];
    const cut = truncateText(text, 500, (t) => (probes.push(t.length), counter.countText(t)), counter.countText(text));
    expect(counter.countText(cut.text)).toBeLessThanOrEqual(500);
    expect(counter.countText(cut.text)).toBeGreaterThan(480);
    expect(probes.length).toBeLessThan(12);
    expect(Math.max(...probes)).toBeLessThan(20_000);
  });

  it("property: the result never exceeds the cap unless it is the bare marker, and keeps a true head and tail", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3_000 }), fc.integer({ min: 0, max: 800 }), (text, cap) => {
        const cut = truncateText(text, cap, quarter);
        if (cut.keptChars === text.length) {
          expect(cut.text).toBe(text);
          return;
        }
        const marker = truncationMarker(text.length - cut.keptChars);
        if (cut.keptChars > 0) expect(quarter(cut.text)).toBeLessThanOrEqual(cap);
        const head = Math.ceil(cut.keptChars / 2);
        expect(cut.text).toBe(text.slice(0, head) + marker + text.slice(text.length - (cut.keptChars - head)));
      }),
      { numRuns: propertyRuns(1_000) },
    );
  });
});
