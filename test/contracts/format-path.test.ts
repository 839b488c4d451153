import { describe, expect, it } from "vitest";
import { formatPath } from "../../contracts/validators/index.js";

describe("formatPath", () => {
  it.each([
    [["tool_calls", 0, "function", "name"], "message.tool_calls[0].function.name"],
    [[], "message"],
    [["metadata", "my key"], 'message.metadata["my key"]'],
    [["content", 3], "message.content[3]"],
    [["$schema"], "message.$schema"],
    [["1abc"], 'message["1abc"]'],
  ] as const)("%j → %s", (segments, expected) => {
    expect(formatPath("message", segments)).toBe(expected);
  });

  it("an empty root starts with the first key", () => {
    expect(formatPath("", ["a", 0, "b"])).toBe("a[0].b");
  });
});
