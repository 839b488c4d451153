import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatResponse, Message, Provider, ProviderDelta, ToolDefinition } from "../../contracts/index.js";
import { Coordinator } from "../../core/index.js";
import { loadModule } from "../../core/loader/load-module.js";
import { validateModuleConfig } from "../../core/loader/validate-module-config.js";
import { AnthropicProvider, mount as mountAnthropic } from "../../modules/provider-anthropic/index.js";
import { mount as mountOpenAI, OpenAIProvider } from "../../modules/provider-openai/index.js";
import { API_KEY, startFakeApiServer, type Api, type FakeApiServer, type Reply } from "./fake-api-server.js";

/**
 * provider-openai (Chat Completions and Responses) and provider-anthropic, with the REAL SDK
 * clients against a local server that applies each API's request rules (fake-api-server.ts).
 */
const TOOLS: ToolDefinition[] = [
  { type: "function", function: { name: "read_file", description: "Reads a file of the workspace.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
];

/** A window with everything a request converts: instructions, a tool round trip, a turn note. */
const WINDOW: Message[] = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "user", content: "Why do the tests fail?" },
  { role: "assistant", content: "Let me look.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"package.json"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: '{ "name": "demo" }' },
  { role: "system", content: "Reminder: answer briefly.", metadata: { scope: "turn" } },
  { role: "user", content: "And now?" },
];

const FLAVOURS = [
  { api: "chat" as const, provider: "openai-chat" },
  { api: "responses" as const, provider: "openai-responses" },
  { api: "anthropic" as const, provider: "anthropic" },
];

let script: (api: Api, body: Record<string, unknown>) => Reply = () => ({ text: "ok" });
let server: FakeApiServer;
beforeAll(async () => {
  server = await startFakeApiServer((api, body) => script(api, body));
});
afterAll(() => server.close());

function providerFor(api: Api, coordinator: Coordinator, extra: Record<string, unknown> = {}): Provider {
  const common = { apiKey: API_KEY, maxRetries: 0, ...extra };
  if (api === "anthropic") return mountAnthropic(coordinator, { model: "claude-sonnet-4", baseURL: server.url, ...common });
  return mountOpenAI(coordinator, { model: "gpt-4o", api, baseURL: `${server.url}/v1`, ...common });
}

function listen(coordinator: Coordinator) {
  const seen: [string, Record<string, unknown>][] = [];
  for (const event of ["provider:request", "provider:response", "provider:error", "content_block:delta", "thinking:delta"] as const) {
    coordinator.hooks.register(event, (data) => void seen.push([event, data as unknown as Record<string, unknown>]));
  }
  return seen;
}

/** The text of an answer: a string, or text blocks (fromAnthropic keeps the block form). */
const textOf = (message: Message): string =>
  typeof message.content === "string" ? message.content : (message.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");

const rejection = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a rejection"); }, (e: unknown) => e as { code: string; message: string; details: Record<string, unknown> });

describe.each(FLAVOURS)("$provider through the official SDK", ({ api, provider }) => {
  it("converts the window (rules of the API hold), converts the answer back and reports the billed usage", async () => {
    const coordinator = new Coordinator();
    const seen = listen(coordinator);
    script = () => ({ text: "The tests fail because package.json has no test script.", usage: { input: 200, output: 12, cacheRead: 128, cacheWrite: api === "anthropic" ? 40 : 0 } });
    const before = server.received.length;
    const { message, usage, stopReason }: ChatResponse = await providerFor(api, coordinator).complete!({ messages: WINDOW, tools: TOOLS });
    const [request] = server.received.slice(before);
    expect(request?.problems).toEqual([]);
    expect(message.role).toBe("assistant");
    expect(textOf(message)).toBe("The tests fail because package.json has no test script.");
    // Anthropic bills input outside the cache separately: inputTokens adds them up.
    expect(usage).toEqual(api === "anthropic" ? { inputTokens: 368, outputTokens: 12, cacheReadTokens: 128, cacheWriteTokens: 40 } : { inputTokens: 200, outputTokens: 12, cacheReadTokens: 128, cacheWriteTokens: 0 });
    expect(stopReason).toBe(api === "chat" ? "stop" : api === "responses" ? "completed" : "end_turn");
    expect(seen.map(([event]) => event)).toEqual(["provider:request", "provider:response"]);
    expect(seen[0]![1]).toMatchObject({ provider, messages: WINDOW, tools: TOOLS });
    expect(seen[1]![1]).toMatchObject({ provider, message, usage, durationMs: expect.any(Number) });
    const tools = request!.body.tools as Record<string, unknown>[];
    expect(tools).toHaveLength(1);
    if (api === "anthropic") {
      expect(request!.body).toMatchObject({ model: "claude-sonnet-4", max_tokens: 64_000, system: [{ type: "text", text: "You are a careful coding agent." }] });
      // cache (default on): breakpoints on the stable prefix.
      expect(JSON.stringify(request!.body)).toContain('"cache_control":{"type":"ephemeral"}');
    }
  });

  it("returns the model's tool calls with their ids, names and arguments", async () => {
    script = () => ({ text: "Reading it.", toolCalls: [{ id: "call_9", name: "read_file", arguments: { path: "src/index.ts" } }] });
    const { message } = await providerFor(api, new Coordinator()).complete!({ messages: WINDOW, tools: TOOLS });
    const calls = message.tool_calls ?? (Array.isArray(message.content) ? message.content.filter((b) => b.type === "tool_use") : []);
    expect(JSON.stringify(calls)).toContain("call_9");
    expect(JSON.stringify(calls)).toContain("src/index.ts");
    expect(JSON.stringify(calls)).toContain("read_file");
  });

  it("streams with onDelta: the pieces arrive in order, the bus gets them, and the message is the same as without", async () => {
    const coordinator = new Coordinator();
    const seen = listen(coordinator);
    const text = "Streaming works: one word at a time.";
    script = () => ({ text, toolCalls: [{ id: "call_2", name: "read_file", arguments: { path: "a.ts" } }] });
    const deltas: ProviderDelta[] = [];
    const streamed = await providerFor(api, coordinator).complete!({ messages: WINDOW, tools: TOOLS, onDelta: (d) => void deltas.push(d) });
    expect(server.received.at(-1)?.body.stream).toBe(true);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.text).join("")).toBe(text);
    const plain = await providerFor(api, new Coordinator()).complete!({ messages: WINDOW, tools: TOOLS });
    expect(streamed.message).toEqual(plain.message);
    expect(streamed.usage).toEqual(plain.usage);
    expect(seen.filter(([event]) => event === "content_block:delta").map(([, d]) => d.delta).join("")).toBe(text);
  });

  it("config stream: true streams a call without onDelta", async () => {
    script = () => ({ text: "streamed anyway" });
    const { message } = await providerFor(api, new Coordinator(), { stream: true }).complete!({ messages: WINDOW });
    expect(server.received.at(-1)?.body.stream).toBe(true);
    expect(textOf(message)).toBe("streamed anyway");
  });

  it("maps the API's errors to PROVIDER codes with the provider's message, and reports provider:error", async () => {
    const cases: [Reply["error"], string, boolean][] = [
      [{ status: 429, message: "Rate limit reached for gpt-4o on tokens per min (TPM).", type: "rate_limit_error" }, "PROVIDER/RATE_LIMITED", true],
      [{ status: 400, message: api === "anthropic" ? "prompt is too long: 212345 tokens > 200000 maximum" : "This model's maximum context length is 128000 tokens.", code: api === "anthropic" ? undefined : "context_length_exceeded" }, "PROVIDER/CONTEXT_LENGTH_EXCEEDED", false],
      [{ status: 400, message: "Invalid value for 'temperature'." }, "PROVIDER/API_ERROR", false],
      [{ status: 500, message: "The server had an error while processing your request." }, "PROVIDER/API_ERROR", true],
    ];
    for (const [error, code, retryable] of cases) {
      const coordinator = new Coordinator();
      const seen = listen(coordinator);
      script = () => ({ error });
      const e = await rejection(providerFor(api, coordinator).complete!({ messages: WINDOW }));
      expect(e.code).toBe(code);
      expect(e.message).toContain(error!.message);
      expect(e.details).toMatchObject({ provider, status: error!.status, providerMessage: error!.message, retryable, module: api === "anthropic" ? "provider-anthropic" : "provider-openai" });
      expect(seen.map(([event]) => event)).toEqual(["provider:request", "provider:error"]);
      expect(seen[1]![1]).toMatchObject({ provider, retryable, error: e });
    }
  });

  it("a wrong key is PROVIDER/AUTHENTICATION_FAILED; no server is PROVIDER/CONNECTION_FAILED", async () => {
    const auth = await rejection(providerFor(api, new Coordinator(), { apiKey: "wrong" }).complete!({ messages: WINDOW }));
    expect(auth).toMatchObject({ code: "PROVIDER/AUTHENTICATION_FAILED", details: { status: 401, retryable: false } });
    const url = api === "anthropic" ? "http://127.0.0.1:9" : "http://127.0.0.1:9/v1";
    const down = await rejection(providerFor(api, new Coordinator(), { baseURL: url }).complete!({ messages: WINDOW }));
    expect(down).toMatchObject({ code: "PROVIDER/CONNECTION_FAILED", details: { retryable: true } });
  });

  it("refuses a request that is not one, before any call", async () => {
    const before = server.received.length;
    for (const bad of [{ messages: [] }, { messages: "hi" }, { messages: WINDOW, tools: "read_file" }, { messages: WINDOW, onDelta: 1 }]) {
      expect((await rejection(providerFor(api, new Coordinator()).complete!(bad as never))).code).toBe("INVALID_ARGUMENT");
    }
    expect(server.received.length).toBe(before);
  });
});

describe("provider config", () => {
  it("getInfo() comes from the model registry: context window and max output", async () => {
    const coordinator = new Coordinator();
    expect(await providerFor("chat", coordinator).getInfo()).toMatchObject({ id: "openai", defaults: { model: "gpt-4o", context_window: 128_000, max_output_tokens: 16_384 } });
    expect(await providerFor("anthropic", coordinator).getInfo()).toMatchObject({ id: "anthropic", defaults: { model: "claude-sonnet-4", context_window: 200_000, max_output_tokens: 64_000 } });
  });

  it("takes the key and the URL from OPENAI_API_KEY / OPENAI_BASE_URL when the config has none", async () => {
    script = () => ({ text: "from the environment" });
    const provider = new OpenAIProvider({ model: "gpt-4o" }, { env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(textOf((await provider.complete({ messages: WINDOW })).message)).toBe("from the environment");
  });

  it("no key anywhere → PROVIDER/MISSING_API_KEY naming the variable; a bad value → INVALID_MODULE_CONFIG at its key; an unknown model → UNKNOWN_MODEL", () => {
    expect(() => new OpenAIProvider({ model: "gpt-4o" }, { env: {} })).toThrow(expect.objectContaining({ code: "PROVIDER/MISSING_API_KEY", details: expect.objectContaining({ expected: expect.stringContaining("OPENAI_API_KEY") }) }));
    expect(() => new AnthropicProvider({ model: "claude-sonnet-4" }, { env: { ANTHROPIC_API_KEY: " " } })).toThrow(expect.objectContaining({ code: "PROVIDER/MISSING_API_KEY", details: expect.objectContaining({ expected: expect.stringContaining("ANTHROPIC_API_KEY") }) }));
    expect(() => new OpenAIProvider({ model: "gpt-4o", api: "completions" as never, apiKey: "k" })).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: "config.api" }) }));
    expect(() => new OpenAIProvider({ model: "gpt-4o", apiKey: "k", timeoutMs: -1 })).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: "config.timeoutMs" }) }));
    expect(() => new OpenAIProvider({ model: "my-own-model", apiKey: "k" })).toThrow(expect.objectContaining({ code: "UNKNOWN_MODEL", details: expect.objectContaining({ path: "config.model" }) }));
    expect(() => new OpenAIProvider({ model: "gpt-4o", apiKey: "k", streamIdleTimeoutMs: 0 })).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: "config.streamIdleTimeoutMs" }) }));
    const own = new OpenAIProvider({ model: "my-own-model", apiKey: "k", contextWindow: 32_000, maxOutputTokens: 4_000 });
    expect(own.getInfo().defaults).toMatchObject({ context_window: 32_000, max_output_tokens: 4_000 });
  });

  it("the APIs' own names of the output cap get a did you mean, as the context's max_tokens does: in code and in amplifier.config.json", async () => {
    const cases: [() => unknown, string][] = [
      [() => new OpenAIProvider({ model: "gpt-4o", apiKey: "k", max_tokens: 1000 } as never), "max_tokens"],
      [() => new OpenAIProvider({ model: "gpt-4o", apiKey: "k", max_completion_tokens: 1000 } as never), "max_completion_tokens"],
      [() => new OpenAIProvider({ model: "gpt-4o", apiKey: "k", maxTokens: 1000 } as never), "maxTokens"],
      [() => new AnthropicProvider({ model: "claude-sonnet-4", apiKey: "k", max_tokens: 1000 } as never), "max_tokens"],
    ];
    for (const [make, key] of cases) {
      expect(make).toThrow(expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: `config.${key}`, hint: 'did you mean "maxOutputTokens"?' }) }));
    }
    for (const name of ["provider-openai", "provider-anthropic"]) {
      const { meta } = await loadModule(name, { baseDir: process.cwd() });
      const where = { module: name, at: ["providers", 0, "config"], file: "/app/amplifier.config.json" };
      expect(() => validateModuleConfig(meta, { model: "gpt-4o", max_tokens: 4096 }, where)).toThrow(
        expect.objectContaining({ code: "INVALID_MODULE_CONFIG", details: expect.objectContaining({ path: "providers[0].config.max_tokens", hint: 'did you mean "maxOutputTokens"?' }) }),
      );
    }
  });
});
