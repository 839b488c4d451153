import { describe, expect, it } from "vitest";
import { createAjv } from "../../core/config/create-ajv.js";
import { schemaIssues } from "../../core/config/schema-issues.js";

/** The issues a document has against a schema, as [path, message, expected, given]. */
function issues(schema: Record<string, unknown>, document: unknown, prefix: (string | number)[] = []) {
  const validate = createAjv(schema, { strict: false }).compile(schema);
  expect(validate(document)).toBe(false);
  return schemaIssues(validate.errors ?? [], document, prefix).map((i) => [i.path, i.message, i.expected, i.given]);
}

describe("schemaIssues: ajv errors in the words of a config error", () => {
  it("anyOf/oneOf: one issue naming the alternatives, not one per branch", () => {
    const schema = { type: "object", properties: { limit: { anyOf: [{ type: "integer" }, { const: "auto" }] } } };
    expect(issues(schema, { limit: "lots" })).toEqual([["limit", "matches none of the alternatives", 'an integer or "auto"', "lots"]]);
  });

  it("const, pattern, array and string sizes, multipleOf", () => {
    const schema = {
      type: "object",
      properties: {
        version: { const: 1 },
        id: { type: "string", pattern: "^[a-z]+$" },
        tags: { type: "array", minItems: 1 },
        name: { type: "string", maxLength: 3 },
        step: { type: "number", multipleOf: 5 },
      },
    };
    expect(issues(schema, { version: 2, id: "A1", tags: [], name: "long", step: 7 })).toEqual([
      ["version", "not the required value", "1", 2],
      ["id", "does not match the pattern", "a string matching /^[a-z]+$/", "A1"],
      ["tags", "too few items", "an array of at least 1 item(s)", []],
      ["name", "too long", "a string of at most 3 character(s)", "long"],
      ["step", "not a multiple", "a multiple of 5", 7],
    ]);
  });

  it("places a module's config inside the file with a prefix; other keywords keep ajv's words", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, minProperties: 2 };
    expect(issues(schema, { a: 1 }, ["tools", 0, "config"])).toEqual([
      ["tools[0].config", "must NOT have fewer than 2 properties", 'to satisfy "minProperties" 2', { a: 1 }],
      ["tools[0].config.a", "wrong type", "a string", 1],
    ]);
  });

  it("a union type is named as such", () => {
    expect(issues({ type: ["string", "null"] }, 5)).toEqual([["", "wrong type", "a string or null", 5]]);
  });
});
