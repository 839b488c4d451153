import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/index.js";
import { Coordinator } from "../../core/index.js";
import { mount as mountContext } from "../../modules/context-simple/index.js";
import { brokenProvider, FLAVOURS, plainAnswer, startBrokenApiServer, streamError, streamPiece, streamStart, type BrokenApiServer } from "./broken-api-server.js";
import type { Api } from "./fake-api-server.js";

/**
 * Every complete() call ends — with an answer or a PROVIDER/* error that says what happened — and
 * a failed call leaves the history as it was. The real SDK clients talk to a local server that
 * misbehaves on purpose (broken-api-server.ts). Limits are small so the tests are quick; where a
 * test names the phase a limit ran out in, the limit (1 s) leaves the headers of a local server
 * ample time; nothing here asserts how fast a call ended, only how.
 */
const PHASE_LIMIT_MS = 1000;
let server: BrokenApiServer;
beforeAll(async () => {
  server = await startBrokenApiServer();
  // One answered call per flavour first: the SDKs' first-call set-up is not part of what is tested.
  server.answer = (a, res) => { json(res); res.end(plainAnswer(a, { input_tokens: 1, output_tokens: 1, prompt_tokens: 1, completion_tokens: 1 })); };
  for (const { api } of FLAVOURS) await brokenProvider(api, server, new Coordinator()).complete({ messages: WINDOW });
});
afterAll(() => server.close());

type Failure = { name: string; code: string; message: string; cause?: unknown; details: Record<string, unknown> };
const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a rejection"); }, (e: unknown) => e as Failure);
const WINDOW: Message[] = [{ role: "user", content: "hi" }];
const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const json = (res: ServerResponse, type = "application/json") => res.writeHead(200, { "content-type": type });

describe.each(FLAVOURS)("$provider: every call ends", ({ api, provider, model }) => {
  it("a body that stalls after the headers ends in PROVIDER/TIMEOUT (phase body) within timeoutMs, and the socket is let go", async () => {
    server.answer = (_api, res) => { json(res); res.write('{"id":"x",'); };
    const coordinator = new Coordinator();
    const errors: unknown[] = [];
    coordinator.hooks.register("provider:error", (data) => void errors.push(data));
    const e = await failureOf(brokenProvider(api, server, coordinator, { timeoutMs: PHASE_LIMIT_MS }).complete({ messages: WINDOW }));
    expect(e.code).toBe("PROVIDER/TIMEOUT");
    expect(e.details).toMatchObject({ provider, model, status: 200, phase: "body", limitMs: PHASE_LIMIT_MS, retryable: true });
    expect(e.details.elapsedMs).toBeGreaterThanOrEqual(PHASE_LIMIT_MS - 10);
    expect(e.cause).toBeDefined();
    expect(errors).toEqual([expect.objectContaining({ provider, retryable: true, error: e })]);
    await server.lastSocketClosed();
  });

  it("a stream that stalls ends in PROVIDER/TIMEOUT (phase stream) when the whole call runs past timeoutMs", async () => {
    server.answer = (a, res) => { sse(res); res.write(streamStart(a)); };
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: PHASE_LIMIT_MS }).complete({ messages: WINDOW, onDelta: () => {} }));
    expect(e.code).toBe("PROVIDER/TIMEOUT");
    expect(e.details).toMatchObject({ provider, phase: "stream", limitMs: PHASE_LIMIT_MS, retryable: true });
    await server.lastSocketClosed();
  });

  it("a stream silent for streamIdleTimeoutMs ends in PROVIDER/TIMEOUT (phase stream-idle) long before timeoutMs", async () => {
    server.answer = (a, res) => { sse(res); res.write(streamStart(a)); };
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: 600_000, streamIdleTimeoutMs: 300 }).complete({ messages: WINDOW, onDelta: () => {} }));
    expect(e.code).toBe("PROVIDER/TIMEOUT");
    expect(e.details).toMatchObject({ phase: "stream-idle", limitMs: 300, retryable: true });
    await server.lastSocketClosed();
  });

  it("a stream that keeps sending is not idle: pieces 100 ms apart for longer than streamIdleTimeoutMs all reach onDelta", async () => {
    server.answer = (a, res) => {
      sse(res);
      res.write(streamStart(a));
      let sent = 0;
      const timer = setInterval(() => {
        res.write(streamPiece(a, "."));
        if (++sent === 15) clearInterval(timer); // 1.5 s of pieces, then silence
      }, 100);
      res.on("close", () => clearInterval(timer));
    };
    const deltas: string[] = [];
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { streamIdleTimeoutMs: 1000 }).complete({ messages: WINDOW, onDelta: (d) => void deltas.push(d.text) }));
    expect(deltas.filter((t) => t === ".")).toHaveLength(15);
    expect(e.details).toMatchObject({ phase: "stream-idle" });
  });

  it("each call has its own clock: beside a call that stalls, another on the same provider is answered", async () => {
    server.answer = (a, res, body) => {
      json(res);
      if (JSON.stringify(body).includes("stall")) res.write('{"id":"x",');
      else res.end(plainAnswer(a, a === "chat" ? { prompt_tokens: 1, completion_tokens: 1 } : { input_tokens: 1, output_tokens: 1 }));
    };
    const p = brokenProvider(api, server, new Coordinator(), { timeoutMs: PHASE_LIMIT_MS });
    const [stalled, answered] = await Promise.allSettled([p.complete({ messages: [{ role: "user", content: "stall" }] }), p.complete({ messages: WINDOW })]);
    expect(stalled).toMatchObject({ status: "rejected", reason: { code: "PROVIDER/TIMEOUT", details: { phase: "body" } } });
    expect(answered).toMatchObject({ status: "fulfilled", value: { usage: { inputTokens: 1, outputTokens: 1 } } });
  });

  it("a retry of the SDK is watched too: a 500, then a stalled body, ends in PROVIDER/TIMEOUT (phase body)", async () => {
    let attempts = 0;
    server.answer = (_a, res) => {
      if (++attempts === 1) return void res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"try again","type":"server_error"}}');
      json(res);
      res.write('{"id":"x",');
    };
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: PHASE_LIMIT_MS, maxRetries: 1 }).complete({ messages: WINDOW }));
    expect(attempts).toBe(2);
    expect(e).toMatchObject({ code: "PROVIDER/TIMEOUT", details: { phase: "body", retryable: true } });
  });

  it("no headers within timeoutMs is PROVIDER/TIMEOUT with phase headers (the SDK's own timer)", async () => {
    server.answer = () => {};
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: 300 }).complete({ messages: WINDOW }));
    expect(e.code).toBe("PROVIDER/TIMEOUT");
    expect(e.details).toMatchObject({ provider, phase: "headers", limitMs: 300, retryable: true });
  });
});

describe.each(FLAVOURS)("$provider: a broken answer is a typed error", ({ api, provider }) => {
  const cases: [string, (api: Api, res: ServerResponse) => void, { stream?: boolean }, Record<string, unknown>][] = [
    ["truncated JSON", (_a, res) => { json(res); res.end('{"id":'); }, {}, { code: "PROVIDER/INVALID_RESPONSE", retryable: false, given: '{"id":' }],
    ["an HTML page with 200", (_a, res) => { json(res, "text/html"); res.end("<html>bad gateway</html>"); }, {}, { code: "PROVIDER/INVALID_RESPONSE", retryable: false, given: "<html>bad gateway</html>", contentType: "text/html" }],
    ["a JSON object of another shape", (_a, res) => { json(res); res.end('{"ok":true}'); }, {}, { code: "PROVIDER/INVALID_RESPONSE", retryable: false }],
    ["JSON where a stream was asked for", (a, res) => { json(res); res.end(plainAnswer(a, undefined)); }, { stream: true }, { code: "PROVIDER/INVALID_RESPONSE", retryable: false }],
    ["a stream cut before its closing event", (a, res) => { sse(res); res.end(streamStart(a) + streamPiece(a, " answer is")); }, { stream: true }, { code: "PROVIDER/CONNECTION_FAILED", retryable: true, phase: "stream" }],
    ["a connection reset in the middle of the body", (_a, res) => { json(res); res.write('{"id":"x",'); setTimeout(() => res.socket?.destroy(), 20); }, {}, { code: "PROVIDER/CONNECTION_FAILED", retryable: true, phase: "body" }],
  ];

  it.each(cases)("%s", async (_name, answer, how, expected) => {
    server.answer = answer;
    const coordinator = new Coordinator();
    const errors: { retryable?: boolean; error: unknown }[] = [];
    coordinator.hooks.register("provider:error", (data) => void errors.push(data));
    const e = await failureOf(brokenProvider(api, server, coordinator, { timeoutMs: 10_000 }).complete({ messages: WINDOW, ...(how.stream ? { onDelta: () => {} } : {}) }));
    const { code, ...details } = expected;
    expect(e.code).toBe(code);
    expect(e.details).toMatchObject({ provider, status: 200, ...details });
    expect(e.cause).toBeDefined();
    expect(errors).toEqual([expect.objectContaining({ retryable: details.retryable, error: e })]);
  });

  it("an error event in the middle of a stream is retryable: Anthropic's overloaded_error is RATE_LIMITED, another CONNECTION_FAILED, with the API's message", async () => {
    server.answer = (a, res) => { sse(res); res.end(streamStart(a) + streamError(a)); };
    const e = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: 10_000 }).complete({ messages: WINDOW, onDelta: () => {} }));
    expect(e.code).toBe(api === "anthropic" ? "PROVIDER/RATE_LIMITED" : "PROVIDER/CONNECTION_FAILED");
    expect(e.details).toMatchObject({ provider, retryable: true, providerMessage: api === "anthropic" ? "Overloaded" : "The server had an error while processing your request." });
  });

  it("the history of the context manager is unchanged after each failure (nothing half-added)", async () => {
    const coordinator = new Coordinator();
    const context = await mountContext(coordinator, {});
    await context.addMessage({ role: "system", content: "You are terse." });
    await context.addMessage({ role: "user", content: "hi" });
    const before = await context.getMessages();
    const p = brokenProvider(api, server, coordinator, { timeoutMs: 300, streamIdleTimeoutMs: 200 });
    for (const [, answer, how] of [...cases, ["stall", (a: Api, res: ServerResponse) => { sse(res); res.write(streamStart(a)); }, { stream: true }] as const]) {
      server.answer = answer;
      const deltas: string[] = [];
      // The README loop's step: a window, the call, and only then the answer into the history.
      const step = async () => {
        const messages = await context.getMessagesForRequest(undefined, p);
        const { message } = await p.complete({ messages, ...(how.stream ? { onDelta: (d) => void deltas.push(d.text) } : {}) });
        await context.addMessage(message);
      };
      expect((await failureOf(step())).code).toMatch(/^PROVIDER\//);
      expect(await context.getMessages()).toEqual(before);
    }
  });

  it("the caller's abort and the caller's own onDelta error are theirs, passed on as they are", async () => {
    server.answer = (a, res) => { sse(res); res.write(streamStart(a) + streamPiece(a, " more")); };
    const controller = new AbortController();
    const aborted = failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: 10_000 }).complete({ messages: WINDOW, signal: controller.signal, onDelta: () => controller.abort() }));
    expect((await aborted).code).toBeUndefined();
    const mine = new Error("my display broke");
    const thrown = await failureOf(brokenProvider(api, server, new Coordinator(), { timeoutMs: 10_000 }).complete({ messages: WINDOW, onDelta: () => { throw mine; } }));
    expect(thrown).toBe(mine);
  });
});
