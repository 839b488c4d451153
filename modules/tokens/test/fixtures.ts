/**
 * Shared test inputs. The two conversations are OpenAI's cookbook examples ("How to count
 * tokens with tiktoken", sections 6 and 7), whose prompt token counts OpenAI verified against
 * the API.
 */
import type { Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";

export const CORPORATE_JARGON: Message[] = [
  {
    role: "system",
    content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
  },
  { role: "system", name: "example_user", content: "New synergies will help drive top-line growth." },
  { role: "system", name: "example_assistant", content: "Things working well together will increase revenue." },
  {
    role: "system",
    name: "example_user",
    content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  { role: "system", name: "example_assistant", content: "Let's talk later when we're less busy about how to do better." },
  { role: "user", content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
];

export const WEATHER_MESSAGES: Message[] = [
  { role: "system", content: "You are a helpful assistant that can answer to questions about the weather." },
  { role: "user", content: "What's the weather like in San Francisco?" },
];

export const WEATHER_TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "get_current_weather",
      description: "Get the current weather in a given location",
      parameters: {
        type: "object",
        properties: {
          location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
          unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
        },
        required: ["location"],
      },
    },
  },
];

/**
 * A tokenizer whose counts are easy to compute by hand: one token per whitespace-separated
 * word. It records every text it was asked to count.
 */
export function wordTokenizer(encoding = "words"): Tokenizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    encoding,
    calls,
    count(text: string): number {
      calls.push(text);
      const trimmed = text.trim();
      return trimmed === "" ? 0 : trimmed.split(/\s+/).length;
    },
  };
}
