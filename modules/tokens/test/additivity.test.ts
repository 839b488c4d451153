/**
 * ADDITIVITY is a contract: context managers cut windows on prefix sums of countMessage, so
 *   countRequest(ms, tools) === countMessages(ms) + replyPriming + (tools.length ? countTools(tools) : 0)
 *   countMessages(ms)       === Σ countMessage(m)
 * must hold exactly, for every message shape, model family and safety factor. Cached counts
 * must also equal fresh ones: no input, however ids collide, gets a stale count.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getTiktokenTokenizer, getTokenCounter } from "../index.js";
import type { Message } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import { messageArb, toolsArb } from "./arbitraries.js";
import { wordTokenizer } from "./fixtures.js";

const models = fc.constantFrom("gpt-4", "gpt-4o", "gpt-4o-mini", "claude-sonnet-4", "gemini-2.5-pro", "llama-3.3");
const factors = fc.option(fc.double({ min: 0.5, max: 3, noNaN: true }), { nil: undefined });
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe.each([
  ["a plugged-in tokenizer", () => wordTokenizer(), 2_000],
  ["tiktoken", () => undefined, 300],
] as Array<[string, () => Tokenizer | undefined, number]>)("with %s", (_label, makeTokenizer, numRuns) => {
  const tokenizer = makeTokenizer();
  const counterFor = (model: string, safetyFactor?: number) =>
    getTokenCounter(model, { ...(tokenizer ? { tokenizer } : {}), ...(safetyFactor === undefined ? {} : { safetyFactor }) });

  it("countRequest = countMessages + replyPriming + countTools, and countMessages = Σ countMessage", () => {
    fc.assert(
      fc.property(models, factors, fc.array(messageArb, { maxLength: 8 }), toolsArb, (model, factor, messages, tools) => {
        const c = counterFor(model, factor);
        const perMessage = messages.map((m) => c.countMessage(m));
        expect(c.countMessages(messages)).toBe(sum(perMessage));
        expect(c.countRequest(messages, tools)).toBe(sum(perMessage) + c.replyPriming + (tools.length ? c.countTools(tools) : 0));
        expect(c.countRequest(messages)).toBe(sum(perMessage) + c.replyPriming);
      }),
      { numRuns },
    );
  });

  it("prefix sums: any cut splits the count exactly", () => {
    fc.assert(
      fc.property(models, fc.array(messageArb, { maxLength: 8 }), fc.nat(), (model, messages, at) => {
        const c = counterFor(model);
        const cut = messages.length === 0 ? 0 : at % (messages.length + 1);
        expect(c.countMessages(messages.slice(0, cut)) + c.countMessages(messages.slice(cut))).toBe(c.countMessages(messages));
      }),
      { numRuns },
    );
  });

  it("cached counts equal fresh counts, even when different messages share an id", () => {
    fc.assert(
      fc.property(models, fc.array(messageArb, { minLength: 1, maxLength: 10 }), (model, messages) => {
        const cached = counterFor(model);
        for (const m of messages) cached.countMessage(m); // warm the shared cache with colliding ids
        // a fresh tokenizer object has a fresh cache: its counts are computed from scratch
        const base = tokenizer ?? getTiktokenTokenizer(cached.encoding as "o200k_base" | "cl100k_base");
        const freshTokenizer: Tokenizer = { encoding: base.encoding, count: (text) => base.count(text) };
        const fresh = getTokenCounter(model, { tokenizer: freshTokenizer, safetyFactor: cached.safetyFactor });
        for (const m of messages) {
          expect(cached.countMessage(structuredClone(m))).toBe(fresh.countMessage(m));
          expect(cached.countMessage(m)).toBe(fresh.countMessage(m));
        }
      }),
      { numRuns: Math.ceil(numRuns / 2) },
    );
  });

  it("a safety factor never lowers a count, and every part rounds up", () => {
    fc.assert(
      fc.property(models, fc.double({ min: 1, max: 3, noNaN: true }), messageArb, (model, factor, m) => {
        const exact = counterFor(model, 1).countMessage(m);
        const scaled = counterFor(model, factor).countMessage(m);
        expect(scaled).toBeGreaterThanOrEqual(exact);
        expect(scaled).toBe(Math.ceil(exact * factor - 1e-9));
      }),
      { numRuns },
    );
  });
});

it("metadata never changes a count", () => {
  fc.assert(
    fc.property(messageArb, fc.string(), (m, source) => {
      const c = getTokenCounter("gpt-4o", { tokenizer: wordTokenizer() });
      const { metadata: _ignored, ...bare } = m;
      expect(c.countMessage({ ...m, metadata: { id: "x", source, critical: true } })).toBe(c.countMessage(bare as Message));
    }),
    { numRuns: 1_000 },
  );
});
