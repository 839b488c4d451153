/**
 * Issue 28 part 1, done when: a 5 MB tool result in a 16k-token session — the window stays valid
 * and under budget (counted independently), its excerpt holds the line matching the prompt, the
 * agent reads the rest through read_stored_result with the handle from the window, and the
 * summarizer's largest request is under its model's window (counted independently by the fake
 * provider, which refuses anything over).
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest, ChatResponse, Provider } from "../../contracts/provider.js";
import type { Message } from "../../contracts/generated/message.js";
import { createSession } from "../../src/session/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { ProviderSummarizer } from "../../modules/summarizers/provider-summarizer.js";
import { checkWindowInvariants } from "../../testing/window-invariants.js";
import { bigLog, NEEDLE, toolRound } from "./spill-fixtures.js";

const SESSION_BUDGET = 16_000;
const SUMMARIZER_WINDOW = 16_000;
const SUMMARY_MAX_TOKENS = 1_000;

/** A provider whose model has a 16k window: it counts each request itself and fails one that does not fit with its reply. */
class SmallWindowProvider implements Provider {
  readonly sizes: number[] = [];
  readonly #counter = getTokenCounter("gpt-4o-mini");
  getInfo() {
    return { id: "small", defaults: { model: "gpt-4o-mini", context_window: SUMMARIZER_WINDOW, max_output_tokens: 2_000 } };
  }
  async complete(request: ChatRequest): Promise<ChatResponse> {
    const size = this.#counter.countRequest(request.messages);
    this.sizes.push(size);
    if (size + SUMMARY_MAX_TOKENS > SUMMARIZER_WINDOW) throw new Error(`request of ${size} tokens + a ${SUMMARY_MAX_TOKENS}-token reply exceeds the ${SUMMARIZER_WINDOW}-token window`);
    return { message: { role: "assistant", content: `- part ${this.sizes.length} summarized: orders, workers, timeouts` } } as ChatResponse;
  }
}

/** Earlier work: 40 rounds with 3-4 kB results each — far more than the summarizer's window. */
function earlierWork(): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < 40; i++) {
    const result = Array.from({ length: 40 }, (_, j) => `src/module-${i}/file-${j}.ts:${j + 1} export function handler${i}_${j}() { return ${i * j}; }`).join("\n");
    messages.push(...toolRound(`Step ${i}: look at module ${i}.`, result, `call_${i}`, JSON.stringify({ path: `src/module-${i}` })));
    messages.push({ role: "assistant", content: `Module ${i} has 40 handlers.` });
  }
  return messages;
}

describe("a 5 MB tool result in a 16k-token session", () => {
  it("window valid and under budget, excerpt with the matching line, the rest read through the tool, every summarizer request under its window", async () => {
    const session = await createSession({
      session: {
        context: {
          module: "context-simple",
          config: { model: "gpt-4o", summarizer: "provider", strategies: [{ use: "summarization", recentTokenBudget: 4_000, summaryMaxTokens: SUMMARY_MAX_TOKENS }] },
        },
      },
      tools: [{ name: "read_stored_result", module: "read-stored-result" }],
    });
    const provider = new SmallWindowProvider();
    await session.coordinator.mount("providers", provider, "small");
    const summaryFailures: unknown[] = [];
    session.coordinator.hooks.on("context:summary_failed", (event) => void summaryFailures.push(event));
    try {
      const log = bigLog(5 * 1024 * 1024);
      expect(log.length).toBeGreaterThanOrEqual(5 * 1024 * 1024);
      for (const m of [...earlierWork(), ...toolRound("Why did order ord-77123 fail? Check the app log.", log)]) await session.context.addMessage(m);
      const stored = await session.context.getMessages();

      const window = await session.context.getMessagesForRequest(SESSION_BUDGET);

      // Valid and under budget, counted independently (a fresh counter of the tokens package).
      const counter = getTokenCounter("gpt-4o");
      expect(counter.countRequest(window)).toBeLessThanOrEqual(SESSION_BUDGET);
      expect(checkWindowInvariants(stored, window, { budget: SESSION_BUDGET, counter })).toEqual([]);
      expect(window.some((m) => m.metadata?.summary !== undefined || /summarized/.test(String(m.content)))).toBe(true);
      // The stored history is the whole 5 MB result.
      expect((await session.context.getMessages()).at(-1)!.content).toBe(log);

      // The excerpt holds the line the prompt asks about, and the handle.
      const result = window.at(-1)!;
      expect(result.role).toBe("tool");
      const excerpt = String(result.content);
      expect(excerpt).toContain(NEEDLE);
      const handle = /spill-[0-9a-f]{24}/.exec(excerpt)![0];

      // The agent reads the rest through the tool: a page by offset, and a search.
      const tool = session.coordinator.get("tools", "read_stored_result")!;
      const offset = 3_000_000;
      const page = await tool.execute({ handle, offset, length: 20_000 });
      expect(page.isError).toBeUndefined();
      expect(page.output.slice(page.output.indexOf("\n") + 1)).toBe(log.slice(offset, offset + 20_000));
      const found = await tool.execute({ handle, pattern: "ord-77123" });
      expect(found.output).toContain(`(offset ${log.indexOf(NEEDLE)}): ${NEEDLE}`);

      // The summarizer ran in parts, each request under its model's window (the provider refused none).
      expect(summaryFailures).toEqual([]);
      expect(provider.sizes.length).toBeGreaterThan(1);
      expect(Math.max(...provider.sizes) + SUMMARY_MAX_TOKENS).toBeLessThanOrEqual(SUMMARIZER_WINDOW);
      // Not vacuous: the old part in one request would not have fit.
      const oneShot = new ProviderSummarizer(provider).buildPrompt(stored.slice(0, -3), { maxTokens: SUMMARY_MAX_TOKENS });
      expect(getTokenCounter("gpt-4o-mini").countRequest(oneShot)).toBeGreaterThan(SUMMARIZER_WINDOW);
    } finally {
      await session.close();
    }
  }, 120_000);
});
