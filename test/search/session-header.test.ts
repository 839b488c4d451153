import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { isSessionHeader } from "../../modules/search/session-header.js";

const m = (role: Message["role"], content: Message["content"]): Message => ({ role, content });

describe("isSessionHeader (issue 19)", () => {
  it("takes the short date lines transcripts open a sitting with", () => {
    for (const text of ["[Session 3 · Sunday 31 December 2023]", "--- 2024-01-16 ---", "Conversation on 8 May 2023, 1:56 pm", "DATE: 29.12.2023", "Session 12 — Jan 5, 2024", "1:56 pm on 8 May, 2023"]) {
      expect(isSessionHeader(m("user", text)), text).toBe(true);
    }
    expect(isSessionHeader(m("system", [{ type: "text", text: "Session 2, 30 December 2023" }]))).toBe(true);
  });

  it("not a message that says something besides the date, a long one, an assistant's or a tool's", () => {
    for (const text of ["I went to Miami on 29 December 2023 with my sister", "See you on Friday", "the 2024-01-16 release notes are out", `[Session 3 · Sunday 31 December 2023] ${"x".repeat(120)}`]) {
      expect(isSessionHeader(m("user", text)), text).toBe(false);
    }
    expect(isSessionHeader(m("assistant", "31 December 2023"))).toBe(false);
    expect(isSessionHeader({ role: "tool", content: "2024-01-16", tool_call_id: "t" })).toBe(false);
  });
});
