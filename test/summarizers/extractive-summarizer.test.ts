import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { EXTRACTIVE_HEADING, ExtractiveSummarizer } from "../../modules/summarizers/index.js";

const counter = getTokenCounter("gpt-4o");
const conversation: Message[] = [
  { role: "user", content: "Hi there! How are you today? Invoice INV-2041 fails to round. It should round half-even." },
  { role: "assistant", content: "Let me look.", tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"src/invoices/create-invoice.ts"}' } }] },
  { role: "tool", tool_call_id: "c1", name: "read_file", content: "export function createInvoice(total) { return Math.round(total * 100) / 100 }" },
  { role: "assistant", content: "Sure thing. We decided to use banker's rounding in src/invoices/create-invoice.ts line 42." },
  { role: "user", content: "Great, thanks. I prefer tabs over spaces. Ship it by 2024-06-01." },
];

describe("ExtractiveSummarizer", () => {
  it("keeps sentences with identifiers, numbers, file paths, dates, decisions and preferences, and the tools called", async () => {
    const text = await new ExtractiveSummarizer({ counter }).summarize(conversation, { maxTokens: 500 });
    expect(text.startsWith(EXTRACTIVE_HEADING)).toBe(true);
    for (const fact of ["INV-2041", "half-even", "read_file", "src/invoices/create-invoice.ts", "line 42", "prefer tabs", "2024-06-01", "createInvoice"]) {
      expect(text).toContain(fact);
    }
    expect(text).not.toContain("How are you today");
    expect(text).not.toContain("Sure thing");
  });

  it("fits maxTokens, keeping the highest-weighted facts, in conversation order", async () => {
    const summarizer = new ExtractiveSummarizer({ counter });
    for (const maxTokens of [1, 5, 20, 40, 80]) {
      const text = await summarizer.summarize(conversation, { maxTokens });
      expect(counter.countText(text)).toBeLessThanOrEqual(maxTokens);
    }
    const small = await summarizer.summarize(conversation, { maxTokens: 40 });
    expect(small.length).toBeGreaterThan(0);
    expect(small).toMatch(/INV-2041|create-invoice|2024-06-01/);
  });

  it("merges a previous summary into one text instead of stacking a second heading", async () => {
    const summarizer = new ExtractiveSummarizer({ counter });
    const first = await summarizer.summarize(conversation.slice(0, 3), { maxTokens: 300 });
    const second = await summarizer.summarize(conversation.slice(3), { maxTokens: 300, previousSummary: first });
    expect(second.split(EXTRACTIVE_HEADING).length).toBe(2);
    expect(second).toContain("INV-2041");
    expect(second).toContain("2024-06-01");
    expect(second.indexOf("INV-2041")).toBeLessThan(second.indexOf("2024-06-01"));
    const again = await summarizer.summarize(conversation.slice(3), { maxTokens: 300, previousSummary: second });
    expect(again).toBe(second);
  });

  it("is deterministic and leaves its input alone", async () => {
    const frozen = structuredClone(conversation);
    const a = await new ExtractiveSummarizer().summarize(frozen, { maxTokens: 200 });
    const b = await new ExtractiveSummarizer().summarize(frozen, { maxTokens: 200 });
    expect(a).toBe(b);
    expect(frozen).toEqual(conversation);
  });

  it("reads Anthropic blocks: tool_use names and tool_result text", async () => {
    const text = await new ExtractiveSummarizer().summarize(
      [
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "grep", input: { pattern: "TODO" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "Found 17 matches in lib/core.py." }] }] },
      ],
      { maxTokens: 200 },
    );
    expect(text).toContain("grep");
    expect(text).toContain("17 matches in lib/core.py");
  });
});
