import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Coordinator } from "../../core/index.js";
import { AnthropicProvider } from "../../modules/provider-anthropic/index.js";
import { OpenAIProvider } from "../../modules/provider-openai/index.js";
import type { Api } from "./fake-api-server.js";

/**
 * A local server that answers the providers' SDKs the ways a real network and broken proxies do:
 * headers and then silence, a cut stream, a reset, HTML with 200, absurd usage figures. Each
 * request is handed to `answer` with the API it was for; `lastSocketClosed` says whether the
 * client let go of the last request's connection.
 */
export interface BrokenApiServer {
  url: string;
  answer: (api: Api, res: ServerResponse, body: Record<string, unknown>) => void;
  /** Resolves when the last request's socket has closed. */
  lastSocketClosed(): Promise<void>;
  close(): Promise<void>;
}

export async function startBrokenApiServer(): Promise<BrokenApiServer> {
  let lastClosed: Promise<void> = Promise.resolve();
  const state: BrokenApiServer = {
    url: "",
    answer: (_api, res) => void res.end(),
    lastSocketClosed: () => lastClosed,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    lastClosed = new Promise((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve())));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const api: Api = req.url === "/v1/messages" ? "anthropic" : req.url === "/v1/responses" ? "responses" : "chat";
      state.answer(api, res, JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

export const FLAVOURS = [
  { api: "chat" as const, provider: "openai-chat", model: "gpt-4o" },
  { api: "responses" as const, provider: "openai-responses", model: "gpt-4o" },
  { api: "anthropic" as const, provider: "anthropic", model: "claude-sonnet-4" },
];

/** A provider of the flavour against the server, retries off, with the coordinator's bus. */
export function brokenProvider(api: Api, server: BrokenApiServer, coordinator: Coordinator, extra: Record<string, unknown> = {}): OpenAIProvider | AnthropicProvider {
  const common = { apiKey: "k", maxRetries: 0, ...extra };
  if (api === "anthropic") return new AnthropicProvider({ model: "claude-sonnet-4", baseURL: server.url, ...common }, { hooks: coordinator.hooks });
  return new OpenAIProvider({ model: "gpt-4o", api, baseURL: `${server.url}/v1`, ...common }, { hooks: coordinator.hooks });
}

// --- what the APIs send ----------------------------------------------------------------------

/** The first event of each API's stream: the answer has begun. */
export function streamStart(api: Api): string {
  if (api === "chat") return data({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta: { role: "assistant", content: "The" }, finish_reason: null }] });
  if (api === "responses") {
    return event("response.created", { type: "response.created", sequence_number: 0, response: responseBody("in_progress", [], undefined) }) +
      event("response.output_item.added", { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] } }) +
      event("response.content_part.added", { type: "response.content_part.added", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
  }
  return event("message_start", { type: "message_start", message: { id: "m1", type: "message", role: "assistant", model: "claude-sonnet-4", content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }) +
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
}

/** One more piece of text in each API's stream. */
export function streamPiece(api: Api, text: string): string {
  if (api === "chat") return data({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
  if (api === "responses") return event("response.output_text.delta", { type: "response.output_text.delta", sequence_number: 3, item_id: "msg_1", output_index: 0, content_index: 0, delta: text });
  return event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
}

/** The API's error event in the middle of a stream: a server error (Anthropic: overloaded). */
export function streamError(api: Api): string {
  if (api === "chat") return data({ error: { message: "The server had an error while processing your request.", type: "server_error" } });
  if (api === "responses") return event("error", { type: "error", sequence_number: 3, code: "server_error", message: "The server had an error while processing your request.", param: null });
  return event("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
}

/** A whole plain (non-streamed) answer "hi" with the given usage object (left out when undefined). */
export function plainAnswer(api: Api, usage: unknown): string {
  const withUsage = usage === undefined ? {} : { usage };
  if (api === "chat") return JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: "gpt-4o", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hi" } }], ...withUsage });
  if (api === "responses") return JSON.stringify(responseBody("completed", [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi", annotations: [] }] }], usage));
  return JSON.stringify({ id: "m1", type: "message", role: "assistant", model: "claude-sonnet-4", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", ...withUsage });
}

function responseBody(status: string, output: unknown[], usage: unknown) {
  return { id: "resp_1", object: "response", created_at: 1, model: "gpt-4o", status, output, ...(usage === undefined ? {} : { usage }) };
}

const data = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const event = (name: string, payload: unknown) => `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
