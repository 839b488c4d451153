import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicProblems, openAIChatProblems, openAIResponsesProblems } from "../adapters/api-rules.js";
import { FakeCompaction, type CompactionCheck } from "./fake-compaction.js";

/**
 * A local stand-in for the OpenAI and Anthropic HTTP APIs, for the REAL SDK clients: it checks the
 * key, applies each API's documented request rules (test/adapters/api-rules.ts; a broken rule →
 * HTTP 400 with the API's error body, as the API would answer) and answers with the APIs'
 * recorded response shapes — JSON, or the SSE event sequence when the request streams.
 *
 * | route                       | API                     | key header                |
 * |-----------------------------|-------------------------|---------------------------|
 * | POST /v1/chat/completions   | OpenAI Chat Completions | Authorization: Bearer KEY |
 * | POST /v1/responses          | OpenAI Responses        | Authorization: Bearer KEY |
 * | POST /v1/messages           | Anthropic Messages      | x-api-key: KEY or Bearer  |
 * | POST /v1/responses/compact  | OpenAI Responses compact | Authorization: Bearer KEY |
 *
 * Server-side compaction and context editing (Anthropic `context_management`, Responses
 * `context_management`, /responses/compact) as fake-compaction.ts documents: checked, compacting
 * when the input passes the threshold, and refusing (400) a compaction block or item that is not
 * one it returned, unchanged.
 */
export type Api = "chat" | "responses" | "anthropic";
export const API_KEY = "test-key";

/** What the scripted model answers: text and/or tool calls, or an API error. */
export interface Reply {
  text?: string;
  thinking?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  error?: { status: number; message: string; code?: string; type?: string };
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** Responses API: the ids of the reasoning and message output items (default one recorded id each, the same for every answer). */
  ids?: { reasoning?: string; message?: string };
  /** The completion's / response's / message's id (default: the recorded one). Real APIs give each answer its own, and LangChain's agent state keys messages by it. */
  id?: string;
  /** Set by the server (fake-compaction.ts) when the request's input passed its compaction threshold: the block/item put first, and the compaction's usage. */
  compaction?: { item: Record<string, unknown>; inputTokens: number; outputTokens: number; pause?: boolean };
}

export interface Received {
  /** "compact": POST /v1/responses/compact. */
  api: Api | "compact";
  body: Record<string, unknown>;
  /** The rules the request broke (then it was answered 400). */
  problems: string[];
  /** Responses and Anthropic: the compaction blocks/items sent back, and whether this answer compacted. */
  compaction?: Omit<CompactionCheck, "compact" | "problems"> & { compacted: boolean };
  /**
   * Responses only, when the input held `item_reference` items (what a client sends for earlier
   * output items while `store` is on, @ai-sdk/openai's default): the body with each reference
   * replaced by the item the fake returned under that id — what the rules were checked on.
   */
  resolved?: Record<string, unknown>;
}

export interface FakeApiServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startFakeApiServer(reply: (api: Api, body: Record<string, unknown>, index: number) => Reply): Promise<FakeApiServer> {
  const received: Received[] = [];
  // Output items answered on /v1/responses, by id: what an item_reference may point to.
  const returnedItems = new Map<string, Record<string, unknown>>();
  const compaction = new FakeCompaction();
  const server: Server = createServer((req, res) => void handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } })));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route: Api | "compact" | undefined = req.url === "/v1/chat/completions" ? "chat" : req.url === "/v1/responses" ? "responses" : req.url === "/v1/messages" || req.url === "/v1/messages?beta=true" ? "anthropic" : req.url === "/v1/responses/compact" ? "compact" : undefined;
    if (req.method !== "POST" || route === undefined) return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    const api: Api = route === "compact" ? "responses" : route;
    // Anthropic takes x-api-key, and a Bearer token (which @anthropic-ai/sdk 1.x sends).
    const key = (api === "anthropic" ? req.headers["x-api-key"] : undefined) ?? req.headers.authorization?.replace(/^Bearer /, "");
    if (key !== API_KEY) return apiError(res, api, { status: 401, message: api === "anthropic" ? "invalid x-api-key" : `Incorrect API key provided: ${String(key)}.`, type: api === "anthropic" ? "authentication_error" : "invalid_request_error", code: "invalid_api_key" });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    if (route === "compact") {
      const compacted = compaction.compactEndpoint(body);
      const problems = [...(typeof body.model === "string" && body.model !== "" ? [] : ["model: required"]), ...compacted.problems, ...openAIResponsesProblems({ input: body.input, ...(body.instructions === undefined ? {} : { instructions: body.instructions }) })];
      received.push({ api: route, body, problems });
      if (problems.length > 0) return apiError(res, api, { status: 400, message: problems.join("; "), type: "invalid_request_error" });
      for (const item of compacted.output) if (typeof item.id === "string") returnedItems.set(item.id, item);
      return send(res, 200, { id: "resp_compact_0001", object: "response.compaction", created_at: 1764300000, output: compacted.output, usage: { input_tokens: compacted.measured, input_tokens_details: { cached_tokens: 0 }, output_tokens: 64, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: compacted.measured + 64 } });
    }
    const { resolved, missing } = api === "responses" ? resolveItemReferences(body, returnedItems) : { resolved: body, missing: [] };
    const check = api === "anthropic" ? compaction.anthropic(resolved, header(req, "anthropic-beta")) : api === "responses" ? compaction.responses(resolved) : undefined;
    const problems = [...missing, ...requestProblems(api, resolved), ...(check?.problems ?? [])];
    const compactionSeen = check === undefined ? {} : { compaction: { sent: check.sent, measured: check.measured, compacted: check.compact !== undefined, ...(check.latestSentBack === undefined ? {} : { latestSentBack: check.latestSentBack }) } };
    received.push({ api, body, problems, ...(resolved !== body ? { resolved } : {}), ...compactionSeen });
    if (problems.length > 0) return apiError(res, api, { status: 400, message: problems.join("; "), type: "invalid_request_error" });
    const scripted = reply(api, body, received.length - 1);
    let answer: Reply = check?.compact ? { ...scripted, compaction: check.compact } : scripted;
    if (api === "responses") {
      // Each response's items get ids of their own, as the API's do (an item id sent twice is refused).
      const serial = (received.length - 1).toString(16).padStart(8, "0");
      answer = { ...answer, ids: { reasoning: answer.ids?.reasoning ?? `rs_67ccd7eca01881908ff0b514${serial}`, message: answer.ids?.message ?? `msg_67ccd3acc8d48190a77525dc6de64b4104becb25c9b2${serial}` } };
    }
    if (answer.error) return apiError(res, api, answer.error);
    const stream = body.stream === true;
    if (api === "chat") return stream ? sse(res, chatChunks(body, answer)) : send(res, 200, chatCompletion(body, answer));
    if (api === "responses") for (const item of response(body, answer).output as Record<string, unknown>[]) returnedItems.set(item.id as string, item);
    if (api === "responses") return stream ? sse(res, responseEvents(body, answer)) : send(res, 200, response(body, answer));
    return stream ? sse(res, anthropicEvents(body, answer)) : send(res, 200, anthropicMessage(body, answer));
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

// --- requests --------------------------------------------------------------------------------

function requestProblems(api: Api, body: Record<string, unknown>): string[] {
  const model = typeof body.model === "string" && body.model !== "" ? [] : ["model: required"];
  if (api === "chat") return [...model, ...openAIChatProblems(body)];
  if (api === "responses") return [...model, ...openAIResponsesProblems(body)];
  const maxTokens = Number.isInteger(body.max_tokens) && (body.max_tokens as number) > 0 ? [] : ["max_tokens: Field required"];
  return [...model, ...maxTokens, ...anthropicProblems(body)];
}

/**
 * A Responses input item `{ type: "item_reference", id }` stands for an output item the API stored
 * (store: true): valid when the fake returned an item with that id, and checked as that item; an
 * unknown id is refused as the API refuses it ("Item with id '…' not found.").
 */
function resolveItemReferences(body: Record<string, unknown>, returned: ReadonlyMap<string, Record<string, unknown>>): { resolved: Record<string, unknown>; missing: string[] } {
  const input = body.input;
  if (!Array.isArray(input) || !input.some((item) => (item as Record<string, unknown> | null)?.type === "item_reference")) return { resolved: body, missing: [] };
  const missing: string[] = [];
  const items = input.map((item: Record<string, unknown>, i) => {
    if (item?.type !== "item_reference") return item;
    const found = returned.get(item.id as string);
    if (!found) missing.push(`input[${i}]: Item with id '${String(item.id)}' not found.`);
    return found ?? item;
  });
  return { resolved: { ...body, input: items }, missing };
}

// --- answers, in the shapes the APIs return ----------------------------------------------------

const usageOf = (r: Reply) => r.usage ?? { input: 120, output: 14, cacheRead: 0, cacheWrite: 0 };

function chatCompletion(body: Record<string, unknown>, r: Reply) {
  const u = usageOf(r);
  const calls = (r.toolCalls ?? []).map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
  return {
    id: r.id ?? "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    object: "chat.completion",
    created: 1741569952,
    model: `${String(body.model)}-2024-08-06`,
    choices: [{ index: 0, message: { role: "assistant", content: r.text ?? null, ...(calls.length ? { tool_calls: calls } : {}), refusal: null, annotations: [] }, logprobs: null, finish_reason: calls.length ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output, prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
    service_tier: "default",
    system_fingerprint: "fp_fc9f1d7035",
  };
}

function chatChunks(body: Record<string, unknown>, r: Reply): [string | undefined, unknown][] {
  const full = chatCompletion(body, r);
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model: full.model, system_fingerprint: full.system_fingerprint };
  const chunk = (delta: unknown, finish: string | null = null) => [undefined, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }] as [undefined, unknown];
  const out = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of split(r.text)) out.push(chunk({ content: piece }));
  (r.toolCalls ?? []).forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const piece of split(JSON.stringify(c.arguments))) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, full.choices[0]!.finish_reason));
  out.push([undefined, { ...base, choices: [], usage: full.usage }]);
  return out;
}

function response(body: Record<string, unknown>, r: Reply) {
  const u = usageOf(r);
  const output: unknown[] = [];
  if (r.compaction) output.push(r.compaction.item);
  if (r.thinking) output.push({ id: r.ids?.reasoning ?? "rs_67ccd7eca01881908ff0b5146584e408", type: "reasoning", summary: [{ type: "summary_text", text: r.thinking }] });
  if (r.text) output.push({ id: r.ids?.message ?? "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c9b22301", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: r.text, annotations: [] }] });
  for (const c of r.toolCalls ?? []) output.push({ id: `fc_${c.id}`, type: "function_call", status: "completed", call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments) });
  return {
    id: r.id ?? "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c9b22301",
    object: "response",
    created_at: 1741476777,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: `${String(body.model)}-2024-08-06`,
    output,
    parallel_tool_calls: true,
    store: false,
    usage: { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cacheRead ?? 0 }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input + u.output },
  };
}

function responseEvents(body: Record<string, unknown>, r: Reply): [string | undefined, unknown][] {
  const full = response(body, r);
  let sequence = 0;
  const out: [string, unknown][] = [];
  const event = (type: string, data: Record<string, unknown>) => out.push([type, { type, sequence_number: sequence++, ...data }]);
  event("response.created", { response: { ...full, status: "in_progress", output: [], usage: null } });
  (full.output as Record<string, unknown>[]).forEach((item, output_index) => {
    if (item.type === "message") {
      const text = r.text ?? "";
      event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      event("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const delta of split(text)) event("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta });
      event("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text });
      event("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text, annotations: [] } });
    } else if (item.type === "function_call") {
      event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of split(item.arguments as string)) event("response.function_call_arguments.delta", { item_id: item.id, output_index, delta });
      event("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments });
    } else event("response.output_item.added", { output_index, item });
    event("response.output_item.done", { output_index, item });
  });
  event("response.completed", { response: full });
  return out;
}

function anthropicMessage(body: Record<string, unknown>, r: Reply) {
  // pause_after_compaction: the answer is the compaction block alone, nothing sampled after it.
  if (r.compaction?.pause) r = { compaction: r.compaction, usage: { input: 0, output: 0 } };
  const u = usageOf(r);
  const content: unknown[] = [];
  if (r.compaction) content.push(r.compaction.item);
  if (r.thinking) content.push({ type: "thinking", thinking: r.thinking, signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" });
  if (r.text) content.push({ type: "text", text: r.text });
  for (const c of r.toolCalls ?? []) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
  return {
    id: r.id ?? "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    type: "message",
    role: "assistant",
    model: String(body.model),
    content,
    stop_reason: r.compaction?.pause ? "compaction" : r.toolCalls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: u.input,
      cache_creation_input_tokens: u.cacheWrite ?? 0,
      cache_read_input_tokens: u.cacheRead ?? 0,
      output_tokens: u.output,
      service_tier: "standard",
      // A compaction's tokens are reported in its own iteration and left out of the top-level figures.
      ...(r.compaction
        ? {
            iterations: [
              { type: "compaction", input_tokens: r.compaction.inputTokens, output_tokens: r.compaction.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
              ...(r.compaction.pause ? [] : [{ type: "message", input_tokens: u.input, output_tokens: u.output, cache_creation_input_tokens: u.cacheWrite ?? 0, cache_read_input_tokens: u.cacheRead ?? 0 }]),
            ],
          }
        : {}),
    },
  };
}

function anthropicEvents(body: Record<string, unknown>, r: Reply): [string | undefined, unknown][] {
  const full = anthropicMessage(body, r);
  const out: [string, unknown][] = [];
  const event = (type: string, data: Record<string, unknown>) => out.push([type, { type, ...data }]);
  event("message_start", { message: { ...full, content: [], stop_reason: null, usage: { ...full.usage, output_tokens: 1 } } });
  (full.content as Record<string, unknown>[]).forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of split(block.text as string)) event("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else if (block.type === "compaction") {
      event("content_block_start", { index, content_block: { type: "compaction", content: null, encrypted_content: null } });
      event("content_block_delta", { index, delta: { type: "compaction_delta", content: block.content, encrypted_content: block.encrypted_content } });
    } else if (block.type === "thinking") {
      event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const thinking of split(block.thinking as string)) event("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
      event("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
    } else {
      event("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const partial_json of split(JSON.stringify(block.input))) event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", { delta: { stop_reason: full.stop_reason, stop_sequence: null }, usage: { output_tokens: full.usage.output_tokens } });
  event("message_stop", {});
  return out;
}

// --- HTTP --------------------------------------------------------------------------------------

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function apiError(res: ServerResponse, api: Api, e: NonNullable<Reply["error"]>): void {
  if (api === "anthropic") return send(res, e.status, { type: "error", error: { type: e.type ?? "api_error", message: e.message } });
  send(res, e.status, { error: { message: e.message, type: e.type ?? "invalid_request_error", param: null, code: e.code ?? null } });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": "req_fake_0001", "request-id": "req_fake_0001" });
  res.end(JSON.stringify(body));
}

function sse(res: ServerResponse, events: [string | undefined, unknown][]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [name, data] of events) res.write(`${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  if (events.every(([name]) => name === undefined)) res.write("data: [DONE]\n\n");
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A text in the pieces a stream sends it in (words with their spaces). */
function split(text: string | undefined): string[] {
  return text ? (text.match(/\S+\s*|\s+/g) ?? [text]) : [];
}
