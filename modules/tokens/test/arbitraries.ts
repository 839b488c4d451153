/**
 * fast-check generators for messages of every shape the counter understands, with ids drawn
 * from a small pool so that different messages share a `metadata.id` (what a window's
 * truncated copy looks like to the cache).
 */
import fc from "fast-check";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.lorem({ maxCount: 12 }),
  fc.constantFrom("", " ", "<|endoftext|>", "naïve café 日本語 🎉", "{\"a\": [1, 2]}"),
);
const size = fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined });

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text }),
  fc.record({ type: fc.constant("image" as const), width: size, height: size }, { requiredKeys: ["type"] }),
  fc.record({
    type: fc.constant("image_url" as const),
    image_url: fc.record({ url: fc.constant("https://example.com/i.png"), detail: fc.constantFrom("auto" as const, "low" as const, "high" as const) }),
    width: size,
    height: size,
  }, { requiredKeys: ["type", "image_url"] }),
  fc.record({
    type: fc.constant("tool_use" as const),
    id: fc.string({ minLength: 1, maxLength: 8 }),
    name: fc.constantFrom("read_file", "grep", "bash"),
    input: fc.dictionary(fc.string({ maxLength: 6 }), text, { maxKeys: 3 }),
  }),
  fc.record({
    type: fc.constant("tool_result" as const),
    tool_use_id: fc.string({ minLength: 1, maxLength: 8 }),
    content: fc.option(fc.oneof(text, fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 3 })), { nil: undefined }),
  }, { requiredKeys: ["type", "tool_use_id"] }),
  fc.record({ type: fc.constant("thinking" as const), thinking: text, signature: fc.string({ maxLength: 10 }) }),
  fc.record({ type: fc.constant("redacted_thinking" as const), data: fc.base64String({ maxLength: 80 }) }),
);

const toolCall = fc.record({
  id: fc.string({ minLength: 1, maxLength: 10 }),
  type: fc.constant("function" as const),
  function: fc.record({ name: fc.constantFrom("read_file", "grep", "bash"), arguments: text }),
});

export const messageArb: fc.Arbitrary<Message> = fc
  .record(
    {
      role: fc.constantFrom("system" as const, "developer" as const, "user" as const, "assistant" as const, "tool" as const),
      content: fc.oneof(text, fc.constant(null), fc.array(block, { maxLength: 4 })),
      name: fc.option(fc.constantFrom("alice", "example_user", "read_file"), { nil: undefined }),
      tool_calls: fc.option(fc.array(toolCall, { minLength: 1, maxLength: 3 }), { nil: undefined }),
      tool_call_id: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined }),
      metadata: fc.option(fc.record({ id: fc.constantFrom("m1", "m2", "m3"), critical: fc.boolean(), source: text }), { nil: undefined }),
    },
    { requiredKeys: ["role", "content"] },
  )
  .map((m) => {
    // drop keys fc.record left as undefined, as a stored message would not carry them
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(m)) if (v !== undefined) out[k] = v;
    return out as Message;
  });

export const toolsArb: fc.Arbitrary<ToolDefinition[]> = fc.array(
  fc.record({
    type: fc.constant("function" as const),
    function: fc.record(
      {
        name: fc.constantFrom("read_file", "grep", "bash", "get_current_weather"),
        description: text,
        parameters: fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(
            fc.string({ minLength: 1, maxLength: 8 }),
            fc.record(
              { type: fc.constantFrom("string", "number", "boolean"), description: text, enum: fc.array(fc.lorem({ maxCount: 1 }), { minLength: 1, maxLength: 3 }) },
              { requiredKeys: ["type"] },
            ),
            { maxKeys: 3 },
          ),
        }),
      },
      { requiredKeys: ["name"] },
    ),
  }),
  { maxLength: 3 },
);
