/**
 * countTokens() reproduces the prompt token counts OpenAI's API returned for the cookbook's
 * examples ("How to count tokens with tiktoken"): these are exact, not estimates.
 */
import { describe, expect, it } from "vitest";
import { countTokens } from "../index.js";
import type { Message } from "@amplifier-ts/contracts";
import { CORPORATE_JARGON, WEATHER_MESSAGES, WEATHER_TOOLS } from "./fixtures.js";

describe("countTokens reproduces OpenAI's API-verified cookbook figures", () => {
  it("corporate-jargon conversation: 129 tokens on gpt-4", () => {
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-4" })).toBe(129);
  });

  it("corporate-jargon conversation: 124 tokens on gpt-4o", () => {
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-4o" })).toBe(124);
  });

  it("weather question with the get_current_weather tool: 105 tokens on gpt-4", () => {
    expect(countTokens(WEATHER_MESSAGES, { model: "gpt-4", tools: WEATHER_TOOLS })).toBe(105);
  });

  it("weather question with the get_current_weather tool: 101 tokens on gpt-4o-mini", () => {
    expect(countTokens(WEATHER_MESSAGES, { model: "gpt-4o-mini", tools: WEATHER_TOOLS })).toBe(101);
  });

  it("the cookbook's other verified models agree (gpt-3.5-turbo 129/105, gpt-4o-mini 124, gpt-4o 101, dated gpt-4-0613 129)", () => {
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-3.5-turbo" })).toBe(129);
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-4-0613" })).toBe(129);
    expect(countTokens(CORPORATE_JARGON, { model: "gpt-4o-mini" })).toBe(124);
    expect(countTokens(WEATHER_MESSAGES, { model: "gpt-3.5-turbo", tools: WEATHER_TOOLS })).toBe(105);
    expect(countTokens(WEATHER_MESSAGES, { model: "gpt-4o", tools: WEATHER_TOOLS })).toBe(101);
  });

  it("an empty tools array costs nothing", () => {
    expect(countTokens(WEATHER_MESSAGES, { model: "gpt-4", tools: [] })).toBe(countTokens(WEATHER_MESSAGES, { model: "gpt-4" }));
  });
});

describe("tool calls (estimated rule, errs high)", () => {
  // A request whose usage OpenAI reported as 40 prompt tokens on gpt-3.5-turbo (a user
  // question as a text block, one call, one result; forum report). Our tool-call constants
  // are not published by OpenAI; they must never count less than the API, and stay close.
  const calculator: Message[] = [
    { role: "user", content: [{ type: "text", text: "How much is 2 plus 2?" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "a", type: "function", function: { name: "calculator", arguments: '{"a":2, "b":2}' } }],
    },
    { role: "tool", tool_call_id: "a", content: "4" },
  ];

  it("counts at least the API's 40 tokens and at most 3 more", () => {
    const count = countTokens(calculator, { model: "gpt-3.5-turbo" });
    expect(count).toBeGreaterThanOrEqual(40);
    expect(count).toBeLessThanOrEqual(43);
  });
});
