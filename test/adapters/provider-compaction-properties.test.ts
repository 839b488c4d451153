/**
 * Provider compaction blocks in random windows (issue 28 part 3): windows of random tool-using
 * histories (the conformance arbitraries) with compaction blocks of either provider put first in
 * random assistant messages. Every request passes its API's rules (api-rules.ts); Anthropic's
 * request opens with the last Anthropic block, verbatim, and carries nothing from before it;
 * Responses carries every OpenAI item, verbatim and in order; neither carries the other's.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { WindowAssembler } from "../../modules/window/index.js";
import { fakeCounter } from "../window/fake-counter.js";
import { CONVERSATION_START, toAnthropic, toOpenAIResponses } from "../../modules/adapters/index.js";
import { anthropicProblems, openAIResponsesProblems } from "./api-rules.js";

const numRuns = propertyRuns(200);
const counter = fakeCounter();
type Compaction = Extract<ContentBlock, { type: "compaction" }>;
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const compactionArb: fc.Arbitrary<Compaction> = fc.oneof(
  fc.record({ type: fc.constant("compaction" as const), provider: fc.constant("anthropic" as const), data: fc.record({ type: fc.constant("compaction" as const), content: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: null }), encrypted_content: fc.base64String({ minLength: 4, maxLength: 40 }) }) }),
  fc.record({ type: fc.constant("compaction" as const), provider: fc.constant("openai" as const), data: fc.record({ type: fc.constant("compaction" as const), id: fc.stringMatching(/^cmp_[a-z0-9]{4,12}$/), encrypted_content: fc.base64String({ minLength: 4, maxLength: 40 }) }) }),
);

/** A window of a random history, with compaction blocks first in some of its assistant messages. */
const windowArb = fc.tuple(toolHistoryArbitrary(), fc.integer({ min: 300, max: 6_000 }), fc.infiniteStream(fc.option(compactionArb, { freq: 3 }))).map(([history, budget, blocks]) => {
  // The arbitrary's images only price an image (no data): give them a small PNG, as a caller would.
  const stored = history.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((b): ContentBlock => (b.type === "image" ? { ...b, source: { type: "base64", media_type: "image/png", data: PNG } } : b)) } : m));
  let window: Message[];
  try {
    window = new WindowAssembler(stored).assemble({ budget, counter }).messages;
  } catch {
    window = [];
  }
  const inserted: Compaction[] = [];
  const next = blocks[Symbol.iterator]();
  const withBlocks = window.map((m) => {
    if (m.role !== "assistant") return m;
    const block = next.next().value as Compaction | null;
    if (!block) return m;
    inserted.push(block);
    const rest: ContentBlock[] = typeof m.content === "string" ? (m.content === "" ? [] : [{ type: "text", text: m.content }]) : (m.content ?? []);
    return { ...m, content: [block, ...rest] };
  });
  return { window: withBlocks, inserted };
});

const hasConversation = (w: Message[]) => w.some((m) => !(m.role === "system" || m.role === "developer") || m.metadata?.scope === "turn");
const json = (value: unknown) => JSON.stringify(value);

describe("compaction blocks in random windows", () => {
  it(`Anthropic: accepted, the last Anthropic block opens the conversation verbatim, nothing before it (${numRuns} windows)`, () => {
    let compacted = 0;
    fc.assert(
      fc.property(windowArb, ({ window, inserted }) => {
        if (!hasConversation(window) || window.every((m) => m.role !== "user" && m.role !== "assistant" && m.role !== "tool")) return;
        let request;
        try {
          request = toAnthropic(window);
        } catch (error) {
          // Only what the plain window would refuse too (e.g. instructions alone).
          expect(() => toAnthropic(window.map(strip))).toThrow();
          return;
        }
        expect(anthropicProblems({ model: "m", max_tokens: 1, ...request })).toEqual([]);
        const sent = request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "compaction");
        const last = inserted.filter((b) => b.provider === "anthropic").at(-1);
        if (last === undefined) return void expect(sent).toEqual([]);
        compacted++;
        expect(sent.map(json)).toEqual([json(last.data)]);
        expect(request.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: CONVERSATION_START }] });
        expect(json((request.messages[1]!.content as unknown[])[0])).toBe(json(last.data));
      }),
      { numRuns },
    );
    expect(compacted).toBeGreaterThan(numRuns / 10);
  }, 120_000);

  it(`Responses: accepted, every OpenAI item verbatim and in order, no Anthropic block (${numRuns} windows)`, () => {
    let compacted = 0;
    fc.assert(
      fc.property(windowArb, ({ window, inserted }) => {
        const request = toOpenAIResponses(window);
        expect(openAIResponsesProblems(request as never)).toEqual([]);
        const sent = request.input.filter((item) => item.type === "compaction");
        const expected = inserted.filter((b) => b.provider === "openai").map((b) => json(b.data));
        if (expected.length > 0) compacted++;
        expect(sent.map(json)).toEqual(expected);
      }),
      { numRuns },
    );
    expect(compacted).toBeGreaterThan(numRuns / 10);
  }, 120_000);
});

/** The window without its compaction blocks. */
function strip(m: Message): Message {
  return Array.isArray(m.content) ? { ...m, content: m.content.filter((b) => b.type !== "compaction") } : m;
}
