import { isAmplifierError } from "@amplifier-ts/contracts";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { fitWindowMiddleware, type WindowEvent } from "../index.js";
import { PromptMirror } from "../prompt-mirror.js";
import type { ProviderCallOptions, ProviderMessage, ProviderPrompt } from "../sdk-types.js";

/**
 * fitWindowMiddleware's transformParams on hand-written provider prompts (LanguageModelV3Prompt):
 * every part kind the spec has, what is kept (the prompt's own objects), what is cut and how a cut
 * message is written back. The 300-turn run against the fake server is agent-300-turns.test.ts.
 */
const model = new MockLanguageModelV3({ modelId: "gpt-4o-mini" });

async function fit(prompt: ProviderPrompt, options: Parameters<typeof fitWindowMiddleware>[0], extra: Partial<ProviderCallOptions> = {}) {
  const events: WindowEvent[] = [];
  const middleware = fitWindowMiddleware({ ...options, onReport: (e) => void events.push(e) });
  const params: ProviderCallOptions = { prompt, ...extra };
  const out = await middleware.transformParams!({ type: "generate", params, model });
  return { params, out, events };
}

const filler = (n: number, word = "figure") => `${word} `.repeat(n).trim();

/** A conversation of `turns` turns: question, a call, its result, an answer. */
function conversation(turns: number, resultWords = 200): ProviderMessage[] {
  const prompt: ProviderMessage[] = [{ role: "system", content: "You are terse.", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }];
  for (let t = 0; t < turns; t++) {
    prompt.push({ role: "user", content: [{ type: "text", text: `question ${t}` }] });
    prompt.push({ role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool-call", toolCallId: `call_${t}`, toolName: "search", input: { query: `q${t}` } }] });
    prompt.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `call_${t}`, toolName: "search", output: { type: "text", value: filler(resultWords) } }] });
    prompt.push({ role: "assistant", content: [{ type: "text", text: `answer ${t}` }] });
  }
  return prompt;
}

describe("fitWindowMiddleware: transformParams over LanguageModelV3Prompt", () => {
  it("a prompt that fits goes out as it came: the same params object", async () => {
    const { params, out, events } = await fit(conversation(3), { budget: 50_000 });
    expect(out).toBe(params);
    expect(events[0]).toMatchObject({ source: "middleware", messagesIn: 13, messagesOut: 13 });
  });

  it("an overflowing prompt keeps the system message first and the newest turns, as the prompt's own objects", async () => {
    const prompt = conversation(40);
    const { out, events } = await fit(prompt, { budget: 3_000 });
    expect(out.prompt.length).toBeLessThan(prompt.length);
    expect(out.prompt[0]).toBe(prompt[0]); // providerOptions (cache marker) untouched
    expect(out.prompt.at(-1)).toBe(prompt.at(-1));
    for (const m of out.prompt.slice(1)) expect(prompt).toContain(m);
    // the first message after the system one opens a turn (a user message), and every call keeps its result
    expect(out.prompt[1]!.role).toBe("user");
    expect(pairingProblems(out.prompt)).toEqual([]);
    expect(events[0]!.report.tokens).toBeLessThanOrEqual(3_000);
  });

  it("counts params.tools: the same prompt keeps fewer messages beside large tool definitions", async () => {
    const prompt = conversation(40);
    const tools: ProviderCallOptions["tools"] = Array.from({ length: 12 }, (_, i) => ({ type: "function" as const, name: `tool_${i}`, description: filler(60, "describes"), inputSchema: { type: "object", properties: { q: { type: "string", description: filler(20, "field") } } } }));
    const without = await fit(prompt, { budget: 6_000 });
    const withTools = await fit(prompt, { budget: 6_000 }, { tools });
    expect(withTools.out.prompt.length).toBeLessThan(without.out.prompt.length);
    expect(withTools.events[0]!.report.toolTokens).toBeGreaterThan(1_000);
  });

  it("a result too large for the window is cut in place: its text shortened, the part's other fields kept", async () => {
    const prompt: ProviderMessage[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: [{ type: "text", text: "read both files" }] },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "a", toolName: "read", input: { path: "small" } },
          { type: "tool-call", toolCallId: "b", toolName: "read", input: { path: "huge" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "read", output: { type: "text", value: "small file" } },
          { type: "tool-result", toolCallId: "b", toolName: "read", output: { type: "text", value: filler(20_000) }, providerOptions: { openai: { note: "kept" } } },
        ],
      },
    ];
    const { out } = await fit(prompt, { budget: 4_000 });
    const tool = out.prompt.at(-1) as Extract<ProviderMessage, { role: "tool" }>;
    expect(tool).not.toBe(prompt[3]);
    expect(tool.content[0]).toBe(prompt[3]!.content[0]); // the small result is the prompt's own part
    const cut = tool.content[1] as Extract<(typeof tool.content)[number], { type: "tool-result" }>;
    expect(cut).toMatchObject({ toolCallId: "b", toolName: "read", providerOptions: { openai: { note: "kept" } }, output: { type: "text" } });
    const value = (cut.output as { value: string }).value;
    expect(value.length).toBeLessThan(20_000 * 7);
    expect(value).toMatch(/truncated/);
    expect(out.prompt.slice(0, 3)).toEqual(prompt.slice(0, 3));
  });

  it("a call whose result is missing gets a result for its call, named after its tool, in a tool message right after it", async () => {
    const prompt: ProviderMessage[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "lost", toolName: "deploy", input: {} }] },
      { role: "user", content: [{ type: "text", text: "what happened?" }] },
    ];
    const { out } = await fit(prompt, { budget: 10_000 });
    expect(out.prompt.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(out.prompt[2]!.content).toEqual([{ type: "tool-result", toolCallId: "lost", toolName: "deploy", output: { type: "text", value: expect.stringMatching(/interrupted/) } }]);
  });

  it("reads every part kind of the spec: files, reasoning, provider-executed calls with their results, approvals", async () => {
    const png = new Uint8Array(64).fill(7);
    const prompt: ProviderMessage[] = [
      { role: "system", content: "You are terse." },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "file", data: png, mediaType: "image/png" },
          { type: "file", data: new URL("https://example.org/a.pdf"), mediaType: "application/pdf", filename: "a.pdf" },
          { type: "file", data: btoa("plain notes"), mediaType: "text/plain" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "thinking it over", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: { q: "x" }, providerExecuted: true },
          { type: "tool-result", toolCallId: "ws", toolName: "web_search", output: { type: "json", value: { hits: 3 } } },
          { type: "tool-call", toolCallId: "c1", toolName: "run", input: { cmd: "ls" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: "ap1", approved: true },
          { type: "tool-result", toolCallId: "c1", toolName: "run", output: { type: "content", value: [{ type: "text", text: "listing" }, { type: "image-data", data: "aGk=", mediaType: "image/png" }] } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    const { params, out, events } = await fit(prompt, { budget: 50_000 });
    expect(out).toBe(params);
    expect(events[0]!.report.tokens).toBeGreaterThan(80); // the image and the texts are counted

    const mirror = new PromptMirror("t");
    const stored = mirror.mirror(prompt).messages;
    expect(stored.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(stored[1]!.content).toMatchObject([{ type: "text", text: "look" }, { type: "image" }, { type: "text", text: expect.stringContaining("a.pdf") }, { type: "text", text: "plain notes" }]);
    expect(stored[2]!.tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "run", arguments: '{"cmd":"ls"}' } }]); // the provider-executed pair stays inside the message
    expect(stored[2]!.content).toMatchObject([{ type: "thinking", signature: "sig" }, { type: "text" }, { type: "text", text: '{"hits":3}' }]);
    expect(stored[3]!.content).toMatchObject([{ type: "text", text: "listing" }, { type: "image" }, { type: "text", text: expect.stringContaining("ap1") }]);
  });

  it("keeps the stored messages of a prompt that only grew: the SDK's fresh copies map to the same objects", () => {
    const mirror = new PromptMirror("t");
    const first = mirror.mirror(conversation(5));
    const second = mirror.mirror([...structuredClone(conversation(5)), { role: "user", content: [{ type: "text", text: "more" }] }]);
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
    first.messages.forEach((m, i) => expect(second.messages[i]).toBe(m));
    expect(second.messages).toHaveLength(first.messages.length + 1);
  });

  it("without model or budget, the wrapped model's id names the window; an id the registry does not know is a typed error", async () => {
    const middleware = fitWindowMiddleware();
    const params: ProviderCallOptions = { prompt: conversation(2) };
    await expect(middleware.transformParams!({ type: "generate", params, model })).resolves.toBe(params);
    const unknown = new MockLanguageModelV3({ modelId: "my-local-model" });
    const error = await middleware.transformParams!({ type: "generate", params, model: unknown }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAmplifierError(error, "WINDOW_FIT/NO_BUDGET")).toBe(true);
    expect(String((error as Error).message)).toMatch(/my-local-model.*budget/);
  });

  it("refuses bad options when made, naming the option and what it expects", () => {
    for (const [options, path] of [
      [{ budget: -5 }, "fitWindowMiddleware(options).budget"],
      [{ budget: 1.5 }, "fitWindowMiddleware(options).budget"],
      [{ model: "" }, "fitWindowMiddleware(options).model"],
      [{ onReport: "log" }, "fitWindowMiddleware(options).onReport"],
      [{ strategies: {} }, "fitWindowMiddleware(options).strategies"],
    ] as const) {
      let error: unknown;
      try {
        fitWindowMiddleware(options as never);
      } catch (e) {
        error = e;
      }
      expect(isAmplifierError(error, "INVALID_ARGUMENT"), path).toBe(true);
      expect((error as { details?: { path?: string } }).details?.path).toBe(path);
    }
  });
});

/** Every tool-call part is answered in the tool message right after it, and every result answers one. */
function pairingProblems(prompt: readonly ProviderMessage[]): string[] {
  const problems: string[] = [];
  prompt.forEach((m, i) => {
    const calls = m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" && !p.providerExecuted ? [p.toolCallId] : [])) : [];
    const next = prompt[i + 1];
    const answered = next?.role === "tool" ? next.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])) : [];
    if (calls.length && calls.sort().join() !== answered.sort().join()) problems.push(`prompt[${i}]: calls ${calls} answered by ${answered}`);
    if (m.role === "tool" && prompt[i - 1]?.role !== "assistant") problems.push(`prompt[${i}]: a tool message not after an assistant message`);
  });
  return problems;
}
