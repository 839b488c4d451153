import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { promptPart, truncateParts } from "../../modules/window/truncate-message.js";

/**
 * A truncation that cuts nothing is no truncation. Found by the agent-loop window property at
 * 10,000 cases: the ladder's last step cut a user prompt ([orphan tool_result, text]) to a cap its
 * text fitted whole; the copy was marked `truncated` without a "[… N chars truncated …]" marker and
 * its blocks were flattened to a string (changes-marked failed).
 */
const countText = (text: string) => Math.ceil(text.length / 4);
const prompt: Message = {
  role: "user",
  content: [
    { type: "tool_result", tool_use_id: "toolu_gone", content: "stale output" },
    { type: "text", text: "Also, please continue." },
  ],
  metadata: { id: "m5" },
};

describe("truncateParts", () => {
  it("a prompt whose text fits its cap keeps its content and gets no truncated mark", () => {
    const copy = truncateParts(prompt, [{ part: promptPart(prompt), maxTokens: 1_000 }], countText);
    expect(copy).not.toBe(prompt);
    expect(copy.content).toEqual(prompt.content);
    expect(copy.metadata?.window).toBeUndefined();
  });

  it("a prompt cut for real is marked and carries the marker", () => {
    const copy = truncateParts(prompt, [{ part: promptPart(prompt), maxTokens: 2 }], countText);
    expect(copy.metadata?.window).toMatchObject({ truncated: { chars: 22 } });
    expect(JSON.stringify(copy.content)).toMatch(/\[… \d+ chars truncated …\]/);
  });
});
