import { describe, expect, it } from "vitest";
import { assertSessionId, isValidSessionId } from "../index.js";

describe("session ids", () => {
  it.each(["a", "0", "session-2025_01.01", "A.b-c_D9", "x".repeat(128), "trailing.", "_"])("accepts %j", (id) => {
    expect(isValidSessionId(id)).toBe(true);
    expect(assertSessionId(id)).toBe(id);
  });

  it.each([
    ["", "it is empty"],
    ["x".repeat(129), "it is 129 characters long (at most 128)"],
    [".hidden", "it starts with a dot"],
    ["..", "it starts with a dot"],
    ["a..b", "it contains '..'"],
    ["../etc/passwd", "it starts with a dot"],
    ["a/b", 'it contains a path separator "/"'],
    ["a\\b", 'it contains a path separator "\\\\"'],
    ["a b", 'it contains the character " "'],
    ["ünï", 'it contains the character "ü"'],
    ["a\u0000", 'it contains the character "\\u0000"'],
    [42, "a session id is a string, not number"],
    [null, "a session id is a string, not null"],
  ])("rejects %j with INVALID_SESSION_ID saying %s", (id, rule) => {
    expect(isValidSessionId(id)).toBe(false);
    try {
      assertSessionId(id, "stores/jsonl");
      expect.unreachable();
    } catch (error) {
      const e = error as { code: string; message: string; details: Record<string, unknown> };
      expect(e.code).toBe("INVALID_SESSION_ID");
      expect(e.message).toContain(rule);
      expect(e.details).toMatchObject({ module: "stores/jsonl", path: "sessionId" });
      expect(e.details.expected).toContain("[A-Za-z0-9._-]");
    }
  });
});
