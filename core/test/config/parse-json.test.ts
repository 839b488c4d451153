import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "../../config/parse-json.js";

function problemOf(text: string) {
  const result = parseJson(text);
  if (result.ok) throw new Error("expected a syntax problem");
  return result.problem;
}

describe("parseJson", () => {
  it("returns the value of valid JSON, ignoring a byte-order mark", () => {
    expect(parseJson('{"a": [1, true, null]}')).toEqual({ ok: true, value: { a: [1, true, null] } });
    expect(parseJson('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it.each([
    ['{\n  "a": 1,\n}', 3, 1, "no trailing comma"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, '"," or "}" after a property value'],
    ["{\n  // note\n  \"a\": 1\n}", 2, 3, "JSON has no comments"],
    ["{ 'a': 1 }", 1, 3, "property name in double quotes"],
    ['{ "a": tru }', 1, 8, "a property value"],
    ['[1, 2', 1, 6, "the end of the file"],
    ['{ "a": "x\\q" }', 1, 10, "a valid escape"],
    ['{ "a": 01 }', 1, 9, '"," or "}"'],
    ['{} {}', 1, 4, "end of file"],
  ])("locates the error in %j at line %i, column %i", (text, line, column, words) => {
    const problem = problemOf(text);
    expect({ line: problem.line, column: problem.column }).toEqual({ line, column });
    expect(problem.reason).toContain(words);
  });

  it("agrees with JSON.parse: valid documents never get a problem, broken ones always do", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value, null, 2);
        expect(parseJson(text).ok).toBe(true);
        const broken = text.slice(0, cut % (text.length + 1)) + text.slice((cut % (text.length + 1)) + 1);
        let nodeAccepts = true;
        try {
          JSON.parse(broken);
        } catch {
          nodeAccepts = false;
        }
        expect(parseJson(broken).ok).toBe(nodeAccepts);
      }),
      { numRuns: 300 },
    );
  });
});
