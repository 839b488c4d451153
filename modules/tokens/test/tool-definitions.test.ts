/**
 * Tool definitions beyond the cookbook's flat example: the documented extensions, the cache
 * and validation. Word tokenizer, cl100k constants: functionInit 10, propertiesInit 3,
 * propertyKey 3, enumInit −3, enumItem 3, functionsEnd 12.
 */
import { describe, expect, it } from "vitest";
import { getTokenCounter } from "../index.js";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { wordTokenizer } from "./fixtures.js";

const fn = (f: ToolDefinition["function"]): ToolDefinition => ({ type: "function", function: f });

describe("countTools", () => {
  const counter = () => getTokenCounter("gpt-4", { tokenizer: wordTokenizer() });

  it("a bare function: functionInit + name + functionsEnd", () => {
    expect(counter().countTools([fn({ name: "ping" })])).toBe(10 + 1 + 12);
  });

  it("name:description with the trailing period dropped (it must not matter)", () => {
    const a = counter().countTools([fn({ name: "ping", description: "Send a ping" })]);
    const b = counter().countTools([fn({ name: "ping", description: "Send a ping." })]);
    expect(a).toBe(b);
    expect(a).toBe(10 + 3 + 12); // "ping:Send a ping" is 3 words
  });

  it("properties: propertiesInit once, propertyKey + key:type:description each, enums itemised", () => {
    const tool = fn({
      name: "f",
      parameters: {
        type: "object",
        properties: {
          q: { type: "string", description: "the query" }, // "q:string:the query" → 2 words
          mode: { type: "string", enum: ["a", "b"] }, // "mode:string" → 1; enum −3 + 2×(3+1)
        },
        required: ["q"],
        additionalProperties: false,
      },
    });
    expect(counter().countTools([tool])).toBe(10 + 1 + 3 + (3 + 2) + (3 + 1 - 3 + 2 * (3 + 1)) + 12);
  });

  it("type unions render as 'a | b', a missing type as 'any'", () => {
    const tokenizer = wordTokenizer();
    getTokenCounter("gpt-4", { tokenizer }).countTools([
      fn({ name: "f", parameters: { type: "object", properties: { x: { type: ["string", "null"] }, y: {} } } }),
    ]);
    expect(tokenizer.calls).toContain("x:string | null");
    expect(tokenizer.calls).toContain("y:any");
  });

  it("other keywords (items, nested properties, format …) are counted as their compact JSON", () => {
    const tokenizer = wordTokenizer();
    getTokenCounter("gpt-4", { tokenizer }).countTools([
      fn({ name: "f", parameters: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } } }),
    ]);
    expect(tokenizer.calls).toContain('{"items":{"type":"string"}}');
  });

  it("several tools share one functionsEnd", () => {
    const c = counter();
    const one = c.countTools([fn({ name: "a" })]);
    expect(c.countTools([fn({ name: "a" }), fn({ name: "b" })])).toBe(2 * one - 12);
  });

  it("o200k models frame each function with 7 tokens instead of 10", () => {
    const gpt4o = getTokenCounter("gpt-4o");
    const gpt4 = getTokenCounter("gpt-4");
    const tool = [fn({ name: "ping" })];
    expect(gpt4.countTools(tool) - gpt4o.countTools(tool)).toBe(3);
  });

  it("an empty list is 0", () => {
    expect(counter().countTools([])).toBe(0);
  });

  it("a changed definition is recounted, never served from the cache", () => {
    const c = counter();
    const tool = fn({ name: "f", description: "one" });
    const before = c.countTools([tool]);
    tool.function.description = "one two three";
    expect(c.countTools([tool])).toBe(before + 2);
  });

  it("an identical definition is tokenized once", () => {
    const tokenizer = wordTokenizer();
    const c = getTokenCounter("gpt-4", { tokenizer });
    c.countTools([fn({ name: "f", description: "d" })]);
    const calls = tokenizer.calls.length;
    c.countTools([fn({ name: "f", description: "d" })]);
    expect(tokenizer.calls.length).toBe(calls);
  });
});

describe("malformed tool definitions are INVALID_ARGUMENT naming the field", () => {
  const c = getTokenCounter("gpt-4", { tokenizer: wordTokenizer() });
  const cases: Array<[string, unknown, string]> = [
    ["not an array", { type: "function" }, "tools"],
    ["missing function", [{ type: "function" }], "tools[0].function"],
    ["empty name", [fn({ name: "ok" }), { type: "function", function: { name: "" } }], "tools[1].function.name"],
    ["description not a string", [{ type: "function", function: { name: "f", description: 1 } }], "tools[0].function.description"],
    ["parameters not an object", [{ type: "function", function: { name: "f", parameters: [] } }], "tools[0].function.parameters"],
    ["properties not an object", [{ type: "function", function: { name: "f", parameters: { properties: 1 } } }], "tools[0].function.parameters.properties"],
  ];
  for (const [what, tools, path] of cases) {
    it(what, () => {
      expect(() => c.countTools(tools as ToolDefinition[])).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", path }));
      expect(() => c.countRequest([], tools as ToolDefinition[])).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", path }));
    });
  }
});
