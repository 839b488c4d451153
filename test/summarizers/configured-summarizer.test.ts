/**
 * Config key `summarizer` of both built-in context modules: extractive (default, offline) or a
 * mounted provider; a missing provider never breaks a request (drop + context:summary_failed).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { isAmplifierError } from "../../contracts/errors.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { EXTRACTIVE_HEADING } from "../../modules/summarizers/index.js";
import { ScriptedProvider } from "../../examples/scripted-provider.js";

const strategies = [{ use: "summarization", recentTokenBudget: 300, minOldTokens: 50 }];

function history(): Message[] {
  const out: Message[] = [{ role: "system", content: "You are terse." }];
  for (let t = 0; t < 30; t++) {
    out.push({ role: "user", content: `Turn ${t}: please set invoice INV-${1000 + t} due date to 2026-12-${String((t % 28) + 1).padStart(2, "0")} and keep currency EUR.` });
    out.push({ role: "assistant", content: `Done: INV-${1000 + t} now due 2026-12-${String((t % 28) + 1).padStart(2, "0")}; currency EUR kept in src/invoices/create-invoice.ts.` });
  }
  return out;
}

async function feed(context: { addMessage(m: Message): Promise<void> }) {
  for (const m of history()) await context.addMessage(m);
}

const summaryOf = (window: Message[]) => window.find((m) => (m.metadata?.window as { synthetic?: string } | undefined)?.synthetic === "summary");

describe("config `summarizer`", () => {
  it("default: the offline extractive summarizer (no provider needed)", async () => {
    const coordinator = new Coordinator();
    const context = await mountSimple(coordinator, { strategies });
    await feed(context);
    const window = await context.getMessagesForRequest(100_000);
    expect(String(summaryOf(window)?.content)).toContain(EXTRACTIVE_HEADING);
  });

  it('"provider": the mounted provider writes the summary (looked up when needed, not at mount)', async () => {
    const coordinator = new Coordinator();
    const context = await mountSimple(coordinator, { strategies, summarizer: "provider" });
    const provider = new ScriptedProvider([{ role: "assistant", content: "PROVIDER SUMMARY: invoices INV-1000… due dates set, EUR kept." }]);
    await coordinator.mount("providers", provider, "main");
    await feed(context);
    const window = await context.getMessagesForRequest(100_000);
    expect(String(summaryOf(window)?.content)).toContain("PROVIDER SUMMARY");
    expect(provider.requests).toHaveLength(1);
  });

  it('{ type: "provider", provider: name } picks that provider among several (context-persistent too)', async () => {
    const coordinator = new Coordinator();
    const context = await mountPersistent(coordinator, { strategies, summarizer: { type: "provider", provider: "cheap" }, store: { type: "memory" } });
    const expensive = new ScriptedProvider([{ role: "assistant", content: "EXPENSIVE" }]);
    const cheap = new ScriptedProvider([{ role: "assistant", content: "CHEAP SUMMARY" }]);
    await coordinator.mount("providers", expensive, "expensive");
    await coordinator.mount("providers", cheap, "cheap");
    await feed(context);
    const window = await context.getMessagesForRequest(100_000);
    expect(String(summaryOf(window)?.content)).toContain("CHEAP SUMMARY");
    expect(expensive.requests).toHaveLength(0);
    await coordinator.cleanup?.();
  });

  it('"provider" with none mounted: the request succeeds, the old part is dropped, context:summary_failed says why', async () => {
    const coordinator = new Coordinator();
    const failures: unknown[] = [];
    coordinator.hooks.on("context:summary_failed", (payload) => void failures.push(payload));
    const context = await mountSimple(coordinator, { strategies, summarizer: "provider" });
    await feed(context);
    const window = await context.getMessagesForRequest(100_000);
    expect(summaryOf(window)).toBeUndefined();
    expect(window.length).toBeLessThan(history().length);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ code: "SUMMARIZER_FAILED" });
  });

  it("a bad value is a typed config error naming the key and what is allowed", async () => {
    const coordinator = new Coordinator();
    const error = await mountSimple(coordinator, { summarizer: "abstractive" as never }).catch((e: unknown) => e);
    expect(isAmplifierError(error)).toBe(true);
    expect(JSON.stringify(error)).toContain("summarizer");
    const error2 = await mountSimple(new Coordinator(), { summarizer: { type: "provider", temperature: 0 } as never }).catch((e: unknown) => e);
    expect(isAmplifierError(error2)).toBe(true);
  });
});
