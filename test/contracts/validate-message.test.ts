import { describe, expect, it } from "vitest";
import { AmplifierError } from "../../contracts/errors.js";
import { isValidMessage, validateMessage, validateMessages } from "../../contracts/validators/index.js";

/** What validateMessage throws for `value`: code and the details a user acts on. */
function failure(value: unknown, path?: string) {
  try {
    validateMessage(value, path);
  } catch (error) {
    expect(error).toBeInstanceOf(AmplifierError);
    const e = error as AmplifierError;
    return { code: e.code, path: e.details.path, expected: e.details.expected, given: e.details.given, hint: e.details.hint, issues: e.details.issues, message: e.message };
  }
  throw new Error("expected validateMessage to throw");
}

const call = (name = "read_file") => ({ id: "call_1", type: "function", function: { name, arguments: "{}" } });

describe("validateMessage", () => {
  it("returns the very object it was given (no copy, nothing stripped)", () => {
    const message = { role: "user", content: "hi", metadata: { id: "m1", traceId: "t" } };
    expect(validateMessage(message)).toBe(message);
    expect(message.metadata).toEqual({ id: "m1", traceId: "t" });
  });

  it("names a nested field by its JSON path", () => {
    const f = failure({ role: "assistant", content: null, tool_calls: [call("")] });
    expect(f).toMatchObject({ code: "INVALID_MESSAGE", path: "message.tool_calls[0].function.name", expected: "a non-empty string", given: "" });
    expect(f.message).toContain("at message.tool_calls[0].function.name");
  });

  it("uses the caller's root path", () => {
    expect(failure({ role: "bot", content: "x" }, "input.messages[2]").path).toBe("input.messages[2].role");
  });

  it("an unknown role lists the roles", () => {
    expect(failure({ role: "bot", content: "x" })).toMatchObject({ path: "message.role", expected: 'one of "system", "developer", "user", "assistant", "tool"', given: "bot" });
  });

  it("a missing field says it is required", () => {
    expect(failure({ role: "user" })).toMatchObject({ path: "message.content", given: undefined });
    expect(failure({ role: "user" }).expected).toContain("a string, an array or null");
    expect(failure({ content: "x" }).expected).toMatch(/\(required\)$/);
  });

  it("a non-object is refused at the root", () => {
    expect(failure("hello")).toMatchObject({ path: "message", expected: "an object", given: "hello" });
    expect(failure(null)).toMatchObject({ path: "message", given: null });
    expect(failure([])).toMatchObject({ path: "message" });
  });

  describe("role rules", () => {
    it("a tool message needs tool_call_id", () => {
      expect(failure({ role: "tool", content: "42" })).toMatchObject({ path: "message.tool_call_id", given: undefined });
      expect(failure({ role: "tool", content: "42" }).expected).toContain("tool message needs tool_call_id");
      expect(isValidMessage({ role: "tool", tool_call_id: "call_1", content: "42" })).toBe(true);
    });

    it("tool_calls only on an assistant message", () => {
      const f = failure({ role: "user", content: "x", tool_calls: [call()] });
      expect(f.path).toBe("message.tool_calls");
      expect(f.expected).toContain('no tool_calls on a "user" message');
      expect(isValidMessage({ role: "assistant", content: "x", tool_calls: [call()] })).toBe(true);
    });

    it("tool_calls, when present, holds at least one call", () => {
      expect(failure({ role: "assistant", content: "x", tool_calls: [] })).toMatchObject({ path: "message.tool_calls", expected: "at least 1 item" });
    });

    it("null content only on an assistant message with tool_calls", () => {
      expect(failure({ role: "assistant", content: null }).path).toBe("message.content");
      expect(failure({ role: "user", content: null }).expected).toContain("null only on an assistant message with tool_calls");
      expect(isValidMessage({ role: "assistant", content: null, tool_calls: [call()] })).toBe(true);
    });
  });

  describe("content blocks", () => {
    it("an error inside a block names the block's field", () => {
      expect(failure({ role: "user", content: [{ type: "text", text: 1 }] })).toMatchObject({ path: "message.content[0].text", expected: "a string", given: 1 });
    });

    it("an unknown block type lists the block types", () => {
      const f = failure({ role: "user", content: [{ type: "text", text: "a" }, { type: "video" }] });
      expect(f).toMatchObject({ path: "message.content[1].type", given: "video" });
      expect(f.expected).toBe('one of "text", "image", "image_url", "tool_use", "tool_result", "thinking", "redacted_thinking", "compaction"');
    });

    it("a tool_result holds only text and image blocks", () => {
      const f = failure({ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "tool_use", id: "x", name: "f", input: {} }] }] });
      expect(f).toMatchObject({ path: "message.content[0].content[0].type", expected: 'one of "text", "image"' });
    });

    it("tool_use input must be an object, not an array", () => {
      expect(failure({ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: [] }] })).toMatchObject({ path: "message.content[0].input", expected: "an object" });
    });

    it("image sizes are whole numbers ≥ 1, beyond the safe-integer range too (as JSON Schema says)", () => {
      expect(failure({ role: "user", content: [{ type: "image", width: 2.5 }] })).toMatchObject({ path: "message.content[0].width", expected: "an integer" });
      expect(failure({ role: "user", content: [{ type: "image", width: 0 }] })).toMatchObject({ expected: "a number ≥ 1" });
      expect(isValidMessage({ role: "user", content: [{ type: "image", width: 1e20 }] })).toBe(true);
    });
  });

  describe("unknown keys", () => {
    it("are refused, listing the allowed keys, with a did-you-mean for another casing", () => {
      const f = failure({ role: "assistant", content: "x", toolCalls: [] });
      expect(f).toMatchObject({ path: "message.toolCalls", given: [], hint: 'did you mean "tool_calls"?' });
      expect(f.expected).toBe('no key "toolCalls" here (allowed: role, content, name, tool_calls, tool_call_id, metadata)');
    });

    it("inside a block the allowed keys are that block's", () => {
      const f = failure({ role: "user", content: [{ type: "image", source: { type: "url", uri: "x" } }] });
      expect(f.path).toBe("message.content[0].source.uri");
      expect(f.expected).toBe('no key "uri" here (allowed: type, media_type, data, url)');
    });

    it("a key that needs quoting is quoted in the path", () => {
      expect(failure({ role: "user", content: "x", "my key": 1 }).path).toBe('message["my key"]');
    });

    it("metadata takes extra keys; its known keys are typed", () => {
      expect(isValidMessage({ role: "user", content: "x", metadata: { traceId: "t", nested: { a: [1] } } })).toBe(true);
      expect(failure({ role: "user", content: "x", metadata: { critical: "yes" } })).toMatchObject({ path: "message.metadata.critical", expected: "a boolean", given: "yes" });
      expect(failure({ role: "user", content: "x", metadata: { runId: "" } })).toMatchObject({ path: "message.metadata.runId", expected: "a non-empty string" });
      expect(failure({ role: "system", content: "x", metadata: { summary: { strategy: "s" } } }).path).toBe("message.metadata.summary.covers");
    });
  });

  describe("metadata.timestamp", () => {
    it.each(["2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123+02:00", "2024-02-29t23:59:59z", "2024-05-01 12:00:00-0530", "2016-12-31T23:59:60Z"])("accepts %s", (timestamp) => {
      expect(isValidMessage({ role: "user", content: "x", metadata: { timestamp } })).toBe(true);
    });

    it.each(["2024-05-01T12:00:00", "2024-02-30T12:00:00Z", "2023-02-29T12:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01", "May 1 2024", "2024-05-01T12:00:60Z"])("refuses %s", (timestamp) => {
      const f = failure({ role: "user", content: "x", metadata: { timestamp } });
      expect(f).toMatchObject({ path: "message.metadata.timestamp", given: timestamp });
      expect(f.expected).toContain("RFC 3339 date-time with a time zone");
    });
  });

  it("reports every problem in issues, the first one in path/expected/given", () => {
    const f = failure({ role: "user", content: "x", metadata: { critical: "yes", ephemeral: 1 } });
    expect(f.path).toBe("message.metadata.critical");
    expect(f.issues).toEqual([
      { path: "message.metadata.critical", expected: "a boolean", given: "yes" },
      { path: "message.metadata.ephemeral", expected: "a boolean", given: 1 },
    ]);
    expect(failure({ role: "bot", content: "x" }).issues).toBeUndefined();
  });
});

describe("validateMessages", () => {
  const good = [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" },
  ];

  it("returns the same array when every element is a Message", () => {
    expect(validateMessages(good)).toBe(good);
    expect(validateMessages([])).toEqual([]);
  });

  it("all or nothing: the first bad element is named by index and path", () => {
    try {
      validateMessages([...good, { role: "user", content: 1 }, { role: "bot", content: "x" }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_MESSAGE", details: { index: 2, path: "messages[2].content", given: 1 } });
    }
  });

  it("refuses a non-array", () => {
    expect(() => validateMessages({ role: "user", content: "x" })).toThrowError(
      expect.objectContaining({ code: "INVALID_MESSAGE", details: expect.objectContaining({ path: "messages", expected: "an array of messages" }) }),
    );
  });

  it("takes the caller's root path", () => {
    expect(() => validateMessages([{ role: "x", content: "" }], "history")).toThrowError(expect.objectContaining({ path: "history[0].role" }));
  });
});

describe("isValidMessage", () => {
  it("answers without throwing", () => {
    expect(isValidMessage({ role: "developer", content: "x" })).toBe(true);
    expect(isValidMessage(undefined)).toBe(false);
    expect(isValidMessage({ role: "user", content: "x", extra: 1 })).toBe(false);
  });
});

// Speed is the bench's job (`npm run bench`: addMessage is inside every agent-loop turn), never a
// timed unit test: a wall-clock bound fails on a slow or shared machine without any regression.
describe("validateMessage on the hot path (it runs on every addMessage)", () => {
  it("returns the very object it was given: no copy per call", () => {
    const message = {
      role: "assistant",
      content: [{ type: "text", text: "Let me look." }],
      tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/a.ts"}' } }],
      metadata: { id: "m1", timestamp: "2024-05-01T12:00:00.123Z", source: "user", runId: "r1" },
    };
    expect(validateMessage(message)).toBe(message);
    expect(validateMessage(message).tool_calls).toBe(message.tool_calls);
  });
});
