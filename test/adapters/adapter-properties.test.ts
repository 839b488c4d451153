/**
 * Every adapter, over windows of random tool-using histories (the conformance arbitraries):
 * the request it builds breaks none of its API's documented rules (api-rules.ts), and reading
 * the request back keeps text, tool calls, tool results and images. Windows per adapter:
 * 2 × AMPLIFIER_PROPERTY_RUNS (default 300 here) — one of the whole history and one at a random
 * budget; BUDGET_TOO_SMALL cases give none, and the test counts the rest.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { modelMessageSchema } from "ai";
import type { ContentBlock, Message, ToolDefinition } from "@amplifier-ts/contracts";
import { toolHistoryArbitrary } from "../../testing/arbitraries.js";
import { propertyRuns } from "../../testing/property-runs.js";
import { WindowAssembler } from "../../modules/window/index.js";
import { fakeCounter } from "../window/fake-counter.js";
import { CONVERSATION_START, fromAISDK, fromAnthropic, fromOpenAIChat, fromOpenAIResponses, toAISDK, toAnthropic, toOpenAIChat, toOpenAIResponses } from "../../modules/adapters/index.js";
import { anthropicProblems, openAIChatProblems, openAIResponsesProblems } from "./api-rules.js";
import { aiSdkPairingProblems } from "./ai-sdk-rules.js";
import { essentials } from "./essentials.js";

const numRuns = propertyRuns(300);
const timeout = Math.max(30_000, numRuns * 40);
const TOOLS: ToolDefinition[] = [{ type: "function", function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The arbitrary's images only price an image (no data); give them a small PNG, as a caller would. */
function withImageData(history: Message[]): Message[] {
  return history.map((m) =>
    Array.isArray(m.content) && m.content.some((b) => b.type === "image")
      ? { ...m, content: m.content.map((b): ContentBlock => (b.type === "image" ? { ...b, source: { type: "base64", media_type: "image/png", data: PNG } } : b)) }
      : m,
  );
}

const counter = fakeCounter();
const windowsOf = fc.tuple(toolHistoryArbitrary(), fc.integer({ min: 200, max: 6_000 }), fc.boolean()).map(([history, budget, tools]) => {
  const stored = withImageData(history);
  const assembler = new WindowAssembler(stored);
  const windows: Message[][] = [];
  for (const b of [1e9, budget]) {
    try {
      windows.push(assembler.assemble({ budget: b, counter }).messages);
    } catch (error) {
      if ((error as { code?: string }).code !== "BUDGET_TOO_SMALL") throw error;
    }
  }
  return { windows, tools: tools ? TOOLS : undefined };
});

/** A window with something besides instructions: Anthropic needs one conversation message. */
const hasConversation = (w: Message[]) => w.some((m) => !(m.role === "system" || m.role === "developer") || m.metadata?.scope === "turn");

function run(name: string, check: (window: Message[], tools: ToolDefinition[] | undefined) => void) {
  it(`${name}: every window becomes a request its API accepts, and reads back with its text, calls, results and images (${numRuns} histories)`, () => {
    let windows = 0;
    fc.assert(
      fc.property(windowsOf, ({ windows: list, tools }) => {
        for (const window of list) {
          check(window, tools);
          windows++;
        }
      }),
      { numRuns },
    );
    expect(windows).toBeGreaterThanOrEqual(numRuns);
  }, timeout);
}

describe("adapters over random windows", () => {
  run("toOpenAIChat", (window, tools) => {
    const request = toOpenAIChat(window, { tools });
    if (window.length === 0) return;
    expect(openAIChatProblems(request as never)).toEqual([]);
    expect(essentials(fromOpenAIChat(request.messages))).toEqual(essentials(window));
  });

  run("toOpenAIResponses", (window, tools) => {
    const request = toOpenAIResponses(window, { tools });
    expect(openAIResponsesProblems(request as never)).toEqual([]);
    expect(essentials(fromOpenAIResponses(request))).toEqual(essentials(window, { joinInstructions: true }));
  });

  run("toAnthropic", (window, tools) => {
    if (!hasConversation(window)) {
      expect(() => toAnthropic(window, { tools })).toThrow(/at least one user or assistant message/);
      return;
    }
    for (const cache of [false, true]) {
      const request = toAnthropic(window, { tools, cache });
      expect(anthropicProblems(request as never)).toEqual([]);
      expect(essentials(fromAnthropic(request), { dropText: CONVERSATION_START })).toEqual(essentials(window));
    }
  });

  run("toAISDK", (window) => {
    const messages = toAISDK(window);
    for (const m of messages) expect(modelMessageSchema.safeParse(m).success).toBe(true);
    expect(aiSdkPairingProblems(messages)).toEqual([]);
    expect(essentials(fromAISDK(messages))).toEqual(essentials(window));
  });
});
