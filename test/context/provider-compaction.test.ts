/**
 * The context manager when the provider compacts on its server (modules/context-manager/
 * provider-compaction.ts): the window starts at the newest stored compaction block, strategies do
 * not run, the provider's compaction is reported as context:post_compact with source "provider",
 * and a compaction bill calibrates nothing.
 */
import { describe, expect, it } from "vitest";
import type { AmplifierEvents, Message, Provider, ProviderInfo } from "@amplifier-ts/contracts";
import { SERVER_COMPACTION_CAPABILITY } from "@amplifier-ts/contracts";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { PROVIDER_COMPACTED_TEXT } from "../../modules/context-manager/provider-compaction.js";

const provider = (capabilities: string[]): Provider => ({ getInfo: (): ProviderInfo => ({ id: "anthropic", defaults: { model: "claude-sonnet-4-6", context_window: 200_000, max_output_tokens: 64_000 }, capabilities }) });
const compacting = provider(["tools", SERVER_COMPACTION_CAPABILITY]);
const plain = provider(["tools"]);
const block = (n: number) => ({ type: "compaction" as const, provider: "anthropic" as const, data: { type: "compaction" as const, content: `Summary ${n}.`, encrypted_content: `state-${n}` } });
const turn = (n: number): Message[] => [{ role: "user", content: `question ${n}` }, { role: "assistant", content: `answer ${n}` }];
const compactedAnswer = (n: number): Message => ({ role: "assistant", content: [block(n), { type: "text", text: `answer ${n}` }] });

describe("providerCompaction", () => {
  it("with the provider's server-compaction capability the window starts at the newest compaction: instructions, placeholder, that message on", async () => {
    const context = new HistoryContextManager({ moduleName: "context-simple", options: {} });
    const history: Message[] = [{ role: "system", content: "rules" }, ...turn(1), { role: "user", content: "q2" }, compactedAnswer(2), ...turn(3), { role: "user", content: "q4" }, compactedAnswer(4), { role: "user", content: "q5" }];
    await context.setMessages(history);
    const window = await context.getMessagesForRequest(undefined, compacting);
    expect(window.map((m) => (typeof m.content === "string" ? m.content : m.content?.[0]?.type))).toEqual(["rules", PROVIDER_COMPACTED_TEXT, "compaction", "q5"]);
    expect((window[2]!.content as { data: unknown }[])[0]!.data).toEqual(block(4).data);
    // Grows by appends: the next message joins; a new compaction moves the start.
    await context.addMessage({ role: "assistant", content: "a5" });
    await context.addMessage({ role: "user", content: "q6" });
    expect((await context.getMessagesForRequest(undefined, compacting)).length).toBe(6);
    await context.addMessage(compactedAnswer(6));
    await context.addMessage({ role: "user", content: "q7" });
    const moved = await context.getMessagesForRequest(undefined, compacting);
    expect(moved.map((m) => (typeof m.content === "string" ? m.content : m.content?.[0]?.type))).toEqual(["rules", PROVIDER_COMPACTED_TEXT, "compaction", "q7"]);
    expect(await context.getMessages()).toHaveLength(history.length + 4); // the stored history is whole
  });

  it("without the capability, or with \"off\", the whole history is the window's (the blocks stay in place)", async () => {
    const history: Message[] = [...turn(1), { role: "user", content: "q2" }, compactedAnswer(2), { role: "user", content: "q3" }];
    for (const [options, p] of [[{}, plain], [{ providerCompaction: "off" as const }, compacting]] as const) {
      const context = new HistoryContextManager({ moduleName: "context-simple", options });
      await context.setMessages(history);
      expect(await context.getMessagesForRequest(undefined, p)).toHaveLength(history.length);
    }
    const forced = new HistoryContextManager({ moduleName: "context-simple", options: { providerCompaction: "on" } });
    await forced.setMessages(history);
    expect(await forced.getMessagesForRequest(undefined, plain)).toHaveLength(3);
  });

  it("configured strategies do not run over what the provider compacts (no double compaction)", async () => {
    const strategies = [{ use: "truncation", maxMessages: 1 }];
    const history: Message[] = [{ role: "user", content: "a question long enough to be truncated" }, compactedAnswer(1), { role: "user", content: "another long question to truncate" }];
    const engine = new HistoryContextManager({ moduleName: "context-simple", options: { strategies, providerCompaction: "off" } });
    await engine.setMessages(history);
    // The engine's truncation drops the compaction message (the provider's state would be lost) …
    expect(JSON.stringify(await engine.getMessagesForRequest(undefined, compacting))).not.toContain("Summary 1.");
    // … while with the provider compacting, no strategy runs: the compaction and what follows are sent.
    const server = new HistoryContextManager({ moduleName: "context-simple", options: { strategies } });
    await server.setMessages(history);
    const window = JSON.stringify(await server.getMessagesForRequest(undefined, compacting));
    expect(window).toContain("Summary 1.");
    expect(window).toContain("another long question to truncate");
  });

  it("an answer with a compaction block is reported as context:post_compact, source provider; its bill calibrates nothing", async () => {
    const hooks = new HookBus();
    const posts: AmplifierEvents["context:post_compact"][] = [];
    hooks.on("context:post_compact", (event) => void posts.push(event));
    const context = new HistoryContextManager({ moduleName: "context-simple", options: {}, hooks });
    await context.setMessages([{ role: "system", content: "rules" }, ...turn(1), ...turn(2), { role: "user", content: "q3" }]);
    await context.getMessagesForRequest(undefined, compacting);
    const usage = { inputTokens: 40, outputTokens: 5, compaction: { iterations: 1, inputTokens: 60_000, outputTokens: 900 } };
    await hooks.emit("provider:response", { provider: "anthropic", model: "claude-sonnet-4-6", message: compactedAnswer(3), usage, durationMs: 12 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(posts).toEqual([{ messageCount: 2, tokens: 900, removed: 5, truncated: 0, summarized: 5, strategies: ["provider:anthropic"], durationMs: 12, source: "provider" }]);
    expect(context.lastUsage).toBeUndefined();
    expect(context.spend).toMatchObject({ calls: 1, compactions: 1, compactionInputTokens: 60_000, compactionOutputTokens: 900 });
    expect(context.spend.compactionUsd).toBeCloseTo((60_000 * 3 + 900 * 15) / 1_000_000, 12);
  });
});
