import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { ScriptedProvider } from "../../examples/scripted-provider.js";
import { ProviderSummarizer, SUMMARY_SYSTEM_PROMPT } from "../../modules/summarizers/index.js";

const history: Message[] = [
  { role: "user", content: "Rename table users_v2 to accounts; keep 30 days of backups." },
  { role: "assistant", content: "Done: migration 0042_rename_users.sql." },
];

describe("ProviderSummarizer", () => {
  it("asks the provider with a prompt that keeps decisions, open tasks, files, identifiers, numbers and preferences", async () => {
    const provider = new ScriptedProvider([{ role: "assistant", content: "- users_v2 → accounts (0042_rename_users.sql); backups 30 days" }]);
    const text = await new ProviderSummarizer(provider).summarize(history, { maxTokens: 200 });
    expect(text).toBe("- users_v2 → accounts (0042_rename_users.sql); backups 30 days");
    const [sys, prompt] = provider.requests[0]!.messages;
    expect(sys!.content).toBe(SUMMARY_SYSTEM_PROMPT);
    for (const word of ["decisions", "open tasks", "file names", "identifiers", "numbers", "preferences"]) expect(SUMMARY_SYSTEM_PROMPT).toContain(word);
    expect(prompt!.content).toContain("users_v2");
    expect(prompt!.content).toContain("under 200 tokens");
  });

  it("updates a previous summary instead of stacking another", async () => {
    const provider = new ScriptedProvider([{ role: "assistant", content: "updated" }]);
    await new ProviderSummarizer(provider).summarize(history, { maxTokens: 100, previousSummary: "- earlier: chose Postgres 16" });
    const prompt = String(provider.requests[0]!.messages[1]!.content);
    expect(prompt).toContain("chose Postgres 16");
    expect(prompt).toMatch(/ONE updated summary that replaces the current one/);
    expect(prompt).toMatch(/do not append a second summary/);
  });

  it("clips a reply that ignores maxTokens", async () => {
    const counter = getTokenCounter("gpt-4o");
    const long = Array.from({ length: 200 }, (_, i) => `- fact ${i} about invoice INV-${i}`).join("\n");
    const provider = new ScriptedProvider([{ role: "assistant", content: long }]);
    const text = await new ProviderSummarizer(provider, { counter }).summarize(history, { maxTokens: 50 });
    expect(counter.countText(text)).toBeLessThanOrEqual(50);
    expect(text.startsWith("- fact 0")).toBe(true);
  });

  it("rejects an empty reply and a provider without complete()", async () => {
    const provider = new ScriptedProvider([{ role: "assistant", content: "  " }]);
    await expect(new ProviderSummarizer(provider).summarize(history, { maxTokens: 50 })).rejects.toMatchObject({ code: "SUMMARIZER_FAILED" });
    expect(() => new ProviderSummarizer({ getInfo: () => provider.getInfo() })).toThrow(/complete\(\)/);
  });
});
