import { describe, expect, it } from "vitest";
import { z, type ZodType } from "zod";
import { formatIssues } from "../../../contracts/validators/format-issues.js";
import { formatPath } from "../../config/format-path.js";

/**
 * The issues a document has against a schema, as [path, message, expected, given]: the words of a
 * config error (contracts' formatIssues, "document" wording — the one translator config files,
 * module configs and contract values share).
 */
function issues(schema: ZodType, document: unknown, prefix: (string | number)[] = []) {
  const result = schema.safeParse(document);
  expect(result.success).toBe(false);
  return formatIssues(result.error!.issues, document, formatPath(prefix), schema, "document").map((i) => [i.path, i.message, i.expected, i.given]);
}

describe("formatIssues, document wording: validation problems in the words of a config error", () => {
  it("a union: one issue naming the alternatives, not one per branch", () => {
    const schema = z.object({ limit: z.union([z.number(), z.literal("auto")]).optional() });
    expect(issues(schema, { limit: "lots" })).toEqual([["limit", "matches none of the alternatives", 'a number or "auto"', "lots"]]);
  });

  it("const, pattern, array and string sizes, multipleOf", () => {
    const schema = z.object({
      version: z.literal(1).optional(),
      id: z.string().regex(/^[a-z]+$/).optional(),
      tags: z.array(z.unknown()).min(1).optional(),
      name: z.string().max(3).optional(),
      step: z.number().multipleOf(5).optional(),
    });
    expect(issues(schema, { version: 2, id: "A1", tags: [], name: "long", step: 7 })).toEqual([
      ["version", "not the required value", "1", 2],
      ["id", "does not match the pattern", "a string matching /^[a-z]+$/", "A1"],
      ["tags", "too few items", "an array of at least 1 item(s)", []],
      ["name", "too long", "a string of at most 3 character(s)", "long"],
      ["step", "not a multiple", "a multiple of 5", 7],
    ]);
  });

  it("places a module's config inside the file with a prefix; other rules keep their own words", () => {
    const schema = z.object({ a: z.string().optional() }).refine((o) => Object.keys(o).length >= 2, { message: "at least 2 properties" });
    expect(issues(schema, { a: 1 }, ["tools", 0, "config"])).toEqual([["tools[0].config.a", "wrong type", "a string", 1]]);
    expect(issues(schema, { a: "x" }, ["tools", 0, "config"])).toEqual([["tools[0].config", "at least 2 properties", "at least 2 properties", { a: "x" }]]);
  });

  it("a union type is named as such", () => {
    expect(issues(z.union([z.string(), z.null()]), 5)).toEqual([["", "matches none of the alternatives", "a string or null", 5]]);
  });

  it("problems are listed as their keys appear in the document; a missing key after its siblings", () => {
    const schema = z.strictObject({ b: z.string(), a: z.number(), c: z.boolean() });
    expect(issues(schema, { zz: 1, a: "x" }).map(([path, message]) => [path, message])).toEqual([
      ["zz", 'unknown key "zz"'],
      ["a", "wrong type"],
      ["b", 'missing required key "b"'],
      ["c", 'missing required key "c"'],
    ]);
  });

  it("a check's own message is what is expected, in both wordings; zod's default messages are not used", () => {
    const schema = z.object({ timeoutMs: z.number().gt(0, "a timeout in ms greater than 0").optional(), retries: z.number().gt(0).optional() });
    const document = { timeoutMs: 0, retries: 0 };
    expect(issues(schema, document)).toEqual([
      ["timeoutMs", "a timeout in ms greater than 0", "a timeout in ms greater than 0", 0],
      ["retries", "out of range", "a number > 0", 0],
    ]);
    const result = schema.safeParse(document);
    expect(formatIssues(result.error!.issues, document, "options", schema).map((i) => i.expected)).toEqual(["a timeout in ms greater than 0", "a number > 0"]);
  });
});
