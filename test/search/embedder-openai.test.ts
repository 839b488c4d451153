import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Coordinator } from "../../core/coordinator.js";
import type { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountContext } from "../../modules/context-simple/index.js";
import { createOpenAIEmbedder, mount as mountEmbedder, registerOpenAIEmbedder } from "../../modules/embedder-openai/index.js";

// A local server speaking the embeddings API's shape: POST /v1/embeddings { model, input: [..] }
// → { object: "list", data: [{ object: "embedding", index, embedding }], model, usage }.
interface Seen {
  url: string;
  auth: string | undefined;
  organization: string | undefined;
  body: { model: string; input: string[]; dimensions?: number };
}
let server: Server;
let baseURL: string;
let seen: Seen[] = [];
/** Status codes to answer the next requests with, before answering normally. */
let failures: { status: number; body?: string }[] = [];
let shuffle = false;
let broken: unknown;

const vectorOf = (text: string, dims = 4) => Array.from({ length: dims }, (_, i) => (text.length % (i + 2)) + i + (text.includes("kiwi") ? 10 : 0));

async function read(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await read(req)) as Seen["body"];
    seen.push({ url: req.url ?? "", auth: req.headers.authorization, organization: req.headers["openai-organization"] as string | undefined, body });
    const failure = failures.shift();
    if (failure) {
      res.writeHead(failure.status, { "content-type": "application/json" });
      return res.end(failure.body ?? JSON.stringify({ error: { message: `failure ${failure.status}`, type: "test" } }));
    }
    if (req.url !== "/v1/embeddings" || req.method !== "POST") {
      res.writeHead(404);
      return res.end();
    }
    if (broken !== undefined) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(broken));
    }
    const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text, body.dimensions ?? 4) }));
    if (shuffle) data.reverse();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
  failures = [];
  shuffle = false;
  broken = undefined;
});

describe("embedder-openai (issue 19)", () => {
  it("posts { model, input, dimensions } with the bearer key, in batches, and returns the vectors in input order", async () => {
    const embedder = createOpenAIEmbedder({ apiKey: "sk-test", baseURL, model: "text-embedding-3-small", dimensions: 3, batchSize: 2, organization: "org-1" });
    shuffle = true; // data[] out of order: placed by index
    const texts = ["alpha", "kiwi beta", "", "gamma delta"];
    const vectors = await embedder.embed(texts);
    expect(seen.map((s) => s.body.input)).toEqual([["alpha", "kiwi beta"], [" ", "gamma delta"]]);
    expect(seen.every((s) => s.url === "/v1/embeddings" && s.auth === "Bearer sk-test" && s.organization === "org-1" && s.body.model === "text-embedding-3-small" && s.body.dimensions === 3)).toBe(true);
    expect(vectors.map((v) => [...v])).toEqual([vectorOf("alpha", 3), vectorOf("kiwi beta", 3), vectorOf(" ", 3), vectorOf("gamma delta", 3)]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(embedder).toMatchObject({ name: "openai:text-embedding-3-small", dimensions: 3 });
    expect(await embedder.embed([])).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it("maps errors to typed PROVIDER errors: 401 auth, 429 rate limit (after retries), 400 api error, a bad body, no server", async () => {
    const embedder = createOpenAIEmbedder({ apiKey: "sk-test", baseURL, maxRetries: 1, retryDelayMs: 1 });
    failures = [{ status: 401 }];
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/AUTHENTICATION_FAILED", details: expect.objectContaining({ status: 401, providerMessage: "failure 401" }) });
    failures = [{ status: 429 }, { status: 429 }];
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/RATE_LIMITED", details: expect.objectContaining({ retryable: true }) });
    failures = [{ status: 400, body: JSON.stringify({ error: { message: "input too long" } }) }];
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/API_ERROR", details: expect.objectContaining({ status: 400, providerMessage: "input too long", retryable: false }) });
    broken = { data: [{ index: 0, embedding: "nope" }] };
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/INVALID_RESPONSE" });
    broken = { data: [] };
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/INVALID_RESPONSE" });
    const nowhere = createOpenAIEmbedder({ apiKey: "k", baseURL: "http://127.0.0.1:1/v1", maxRetries: 0 });
    await expect(nowhere.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/CONNECTION_FAILED" });
  });

  it("timeoutMs holds over the body too: headers then silence is PROVIDER/TIMEOUT (phase body), a body cut off CONNECTION_FAILED, HTML with 200 INVALID_RESPONSE", async () => {
    let mode = "";
    const odd = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": mode === "html" ? "text/html" : "application/json" });
      if (mode === "stall") res.write('{"data":[');
      else if (mode === "cut") { res.write('{"data":['); setTimeout(() => res.socket?.destroy(), 20); }
      else res.end("<html>bad gateway</html>");
    });
    await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
    const embedder = createOpenAIEmbedder({ apiKey: "k", baseURL: `http://127.0.0.1:${(odd.address() as AddressInfo).port}/v1`, maxRetries: 0, timeoutMs: 1000 });
    try {
      mode = "stall";
      await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/TIMEOUT", details: expect.objectContaining({ phase: "body", status: 200, limitMs: 1000, retryable: true }) });
      mode = "cut";
      await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/CONNECTION_FAILED", details: expect.objectContaining({ phase: "body", retryable: true }) });
      mode = "html";
      await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "PROVIDER/INVALID_RESPONSE", details: expect.objectContaining({ given: "<html>bad gateway</html>" }) });
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  it("retries a 5xx and a 429 and succeeds when the server recovers", async () => {
    const embedder = createOpenAIEmbedder({ apiKey: "sk-test", baseURL, maxRetries: 2, retryDelayMs: 1 });
    failures = [{ status: 503 }, { status: 429 }];
    expect(await embedder.embed(["kiwi"])).toHaveLength(1);
    expect(seen).toHaveLength(3);
  });

  it("bad options and a missing key are typed errors naming what was wrong", () => {
    expect(() => createOpenAIEmbedder({ baseURL }, {})).toThrowError(expect.objectContaining({ code: "PROVIDER/MISSING_API_KEY" }));
    expect(() => createOpenAIEmbedder({ apiKey: "k", batchSize: 5_000 })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "batchSize" }) }));
    expect(() => createOpenAIEmbedder({ apiKey: "k", model: "m", bogus: 1 } as never)).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(createOpenAIEmbedder({ baseURL }, { OPENAI_API_KEY: "from-env" }).name).toBe("openai:text-embedding-3-small");
  });

  it("registered as the capability \"embedder\", the context's search fuses its vectors (requests reach the server)", async () => {
    const coordinator = new Coordinator({ sessionId: "embedder-openai" });
    await mountEmbedder(coordinator, { apiKey: "sk-test", baseURL });
    const context = (await mountContext(coordinator, {})) as HistoryContextManager;
    try {
      expect(context.searchIndex.hasEmbedder).toBe(true);
      await context.addMessage({ role: "user", content: "the kiwi api key rotates every 30 days" });
      await context.addMessage({ role: "assistant", content: "noted" });
      const hits = await context.search("kiwi rotation", { k: 2 });
      expect(hits[0]!.message.content).toContain("kiwi");
      expect(seen.some((s) => s.body.input.includes("kiwi rotation"))).toBe(true);
    } finally {
      await coordinator.cleanup();
    }
    const other = new Coordinator({ sessionId: "embedder-openai-2" });
    expect(registerOpenAIEmbedder(other, { apiKey: "k", baseURL }).name).toBe("openai:text-embedding-3-small");
  });
});
