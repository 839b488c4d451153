/**
 * The OpenAI embeddings API as an Embedder (contracts/search.ts): `POST {baseURL}/embeddings`
 * with `{ model, input: [text, …], dimensions? }` and `Authorization: Bearer <key>`, answered by
 * `{ data: [{ index, embedding: number[] }, …] }`. Plain `fetch`, no SDK: one endpoint, and any
 * server speaking that shape works (OpenAI, Azure's /openai/v1, a local proxy, vLLM, Ollama's
 * OpenAI-compatible API).
 *
 * | what                          | how                                                                                  |
 * |-------------------------------|--------------------------------------------------------------------------------------|
 * | batching                      | `batchSize` texts per request (default 256, at most the API's 2,048), sent one batch after another; the vectors come back in input order (by `data[].index`) |
 * | empty texts                   | sent as a single space (the API rejects an empty string); a zero-length list makes no request |
 * | errors                        | typed PROVIDER/* errors (contracts/provider-errors.ts): 401/403 AUTHENTICATION_FAILED, 429 RATE_LIMITED, other statuses API_ERROR (`status`, the API's message), no whole answer (body included) in `timeoutMs` TIMEOUT (`phase` headers or body), no connection or a body broken off CONNECTION_FAILED, a body that is not one vector per input INVALID_RESPONSE; 429, 5xx and connection failures are retried `maxRetries` times (default 2) with a doubling delay |
 * | key                           | `apiKey`, else the environment variable OPENAI_API_KEY; neither: MISSING_API_KEY when the embedder is created |
 * | wiring                        | `registerOpenAIEmbedder(coordinator, options)` (or mounting this module) registers it as the capability "embedder" — register it before the context module mounts: the context's search index then fuses BM25 with these vectors (reciprocal rank fusion) |
 */
import { z } from "zod";
import type { CoordinatorContract, Embedder } from "@amplifier-ts/contracts";
import { createError, EMBEDDER_CAPABILITY, providerErrors } from "@amplifier-ts/contracts";

export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";
/** Inputs the API accepts in one request. */
export const MAX_INPUTS_PER_REQUEST = 2_048;

export const openAIEmbedderOptions = z
  .object({
    apiKey: z.string().min(1).optional().meta({ description: "Default: the environment variable OPENAI_API_KEY." }),
    baseURL: z.string().url().default("https://api.openai.com/v1").meta({ description: "The API's base URL; requests go to <baseURL>/embeddings." }),
    model: z.string().min(1).default(DEFAULT_EMBEDDING_MODEL),
    dimensions: z.number().int().positive().optional().meta({ description: "Sent as `dimensions` (text-embedding-3 models can shorten their vectors)." }),
    batchSize: z.number().int().positive().max(MAX_INPUTS_PER_REQUEST).default(256),
    timeoutMs: z.number().int().positive().default(30_000),
    maxRetries: z.number().int().min(0).max(10).default(2),
    retryDelayMs: z.number().int().min(0).default(500),
    organization: z.string().min(1).optional(),
  })
  .strict();
export type OpenAIEmbedderOptions = z.input<typeof openAIEmbedderOptions>;

const MODULE = "embedder-openai";

export const meta = {
  name: MODULE,
  version: "0.1.0",
  configSchema: z.toJSONSchema(openAIEmbedderOptions, { io: "input" }) as Record<string, unknown>,
};

/** An Embedder over the OpenAI embeddings API (see the file comment). */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions = {}, env: Record<string, string | undefined> = process.env): Embedder {
  const parsed = openAIEmbedderOptions.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw createError("INVALID_ARGUMENT", `embedder-openai option ${issue.path.join(".") || "(root)"}: ${issue.message}`, {
      module: MODULE,
      path: issue.path.join("."),
      expected: "OpenAIEmbedderOptions (modules/embedder-openai)",
      given: options,
    });
  }
  const o = parsed.data;
  const apiKey = o.apiKey ?? (env.OPENAI_API_KEY?.trim() || undefined);
  if (!apiKey) throw providerErrors.create("MISSING_API_KEY", undefined, { module: MODULE, expected: "OPENAI_API_KEY" });
  const url = `${o.baseURL.replace(/\/+$/, "")}/embeddings`;
  const headers: Record<string, string> = { "content-type": "application/json", authorization: `Bearer ${apiKey}` };
  if (o.organization) headers["openai-organization"] = o.organization;

  async function request(input: string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: o.model, input, encoding_format: "float", ...(o.dimensions ? { dimensions: o.dimensions } : {}) });
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      // One clock for the attempt, body included (the signal of a fetch also ends its body's read).
      const signal = AbortSignal.timeout(o.timeoutMs);
      try {
        response = await fetch(url, { method: "POST", headers, body, signal });
      } catch (cause) {
        if (attempt < o.maxRetries) {
          await delay(o.retryDelayMs * 2 ** attempt);
          continue;
        }
        throw unanswered(cause, "headers", signal);
      }
      if (response.ok) {
        let text: string;
        try {
          text = await response.text();
        } catch (cause) {
          throw unanswered(cause, "body", signal, response.status);
        }
        return vectorsOf(parsedOrText(text), input.length);
      }
      const text = await response.text().catch(() => "");
      const providerMessage = apiMessage(text);
      const retryable = response.status === 429 || response.status >= 500 || response.status === 408 || response.status === 409;
      if (retryable && attempt < o.maxRetries) {
        await delay(o.retryDelayMs * 2 ** attempt);
        continue;
      }
      const details = { module: MODULE, status: response.status, providerMessage, retryable };
      if (response.status === 401 || response.status === 403) throw providerErrors.create("AUTHENTICATION_FAILED", providerMessage, { ...details, retryable: false });
      if (response.status === 429) throw providerErrors.create("RATE_LIMITED", providerMessage, details);
      throw providerErrors.create("API_ERROR", `${response.status}: ${providerMessage}`, details);
    }
  }

  /** The attempt ended without a whole answer: its clock ran out (TIMEOUT), else the connection failed. */
  function unanswered(cause: unknown, phase: "headers" | "body", signal: AbortSignal, status?: number): Error {
    const where = { module: MODULE, phase, ...(status === undefined ? {} : { status }), retryable: true, cause };
    if (signal.aborted) return providerErrors.create("TIMEOUT", `${url}: no end of the ${phase} within ${o.timeoutMs} ms`, { ...where, limitMs: o.timeoutMs });
    return providerErrors.create("CONNECTION_FAILED", `${url}: ${(cause as Error)?.message ?? String(cause)}`, { ...where, timeoutMs: o.timeoutMs });
  }

  function vectorsOf(json: unknown, count: number): Float32Array[] {
    const data = (json as { data?: unknown } | undefined)?.data;
    const out: (Float32Array | undefined)[] = new Array(count);
    if (Array.isArray(data) && data.length === count) {
      for (let i = 0; i < data.length; i++) {
        const item = data[i] as { index?: unknown; embedding?: unknown };
        const at = typeof item?.index === "number" ? item.index : i;
        if (!Number.isInteger(at) || at < 0 || at >= count || out[at] || !Array.isArray(item.embedding) || item.embedding.length === 0 || !item.embedding.every((x) => typeof x === "number" && Number.isFinite(x))) break;
        out[at] = Float32Array.from(item.embedding as number[]);
      }
    }
    let complete = true;
    for (let i = 0; i < count; i++) if (out[i] === undefined) complete = false; // (some() skips an array's holes)
    if (!complete) {
      throw providerErrors.create("INVALID_RESPONSE", "the embeddings API did not answer one vector per input", { module: MODULE, expected: `{ data: [{ index, embedding: number[] }] × ${count} }`, given: json });
    }
    return out as Float32Array[];
  }

  return {
    name: `openai:${o.model}`,
    ...(o.dimensions ? { dimensions: o.dimensions } : {}),
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) {
        throw createError("INVALID_ARGUMENT", "embed expects an array of strings", { module: MODULE, path: "texts", expected: "string[]", given: texts });
      }
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += o.batchSize) out.push(...(await request(texts.slice(i, i + o.batchSize).map((t) => (t === "" ? " " : t)))));
      return out;
    },
  };
}

/** Creates the embedder and registers it as the coordinator capability "embedder" (before the context module mounts). */
export function registerOpenAIEmbedder(coordinator: CoordinatorContract, options: OpenAIEmbedderOptions = {}): Embedder {
  const embedder = createOpenAIEmbedder(options);
  coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
  return embedder;
}

/** As a module: `mount(coordinator, config)` registers the embedder (mount it before the context module). */
export async function mount(coordinator: CoordinatorContract, config: OpenAIEmbedderOptions = {}): Promise<void> {
  registerOpenAIEmbedder(coordinator, config);
}

function apiMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || "(empty body)";
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The body as JSON, or its first characters when it is not JSON (what INVALID_RESPONSE shows as `given`). */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 512);
  }
}
