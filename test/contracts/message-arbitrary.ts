import fc from "fast-check";
import type { ContentBlock, Message, MessageMetadata } from "../../contracts/generated/message.js";

/**
 * Messages valid by contracts/schemas/message.schema.json, covering every branch of it: all
 * roles, string / block / null content, all seven block types with and without their optional
 * fields, both tool styles, metadata with every known field and extra keys, RFC 3339 timestamps
 * in their lesser-seen forms (offsets, lowercase, space separator, leap seconds).
 */
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("", "naïve café 日本語 🎉", '{"a":[1]}'));
const nonEmpty = fc.string({ minLength: 1, maxLength: 12 });
const size = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constant(1e20));

const textBlock = fc.record({ type: fc.constant("text" as const), text });
const imageBlock = fc.record(
  {
    type: fc.constant("image" as const),
    source: fc.record(
      { type: fc.constantFrom("base64" as const, "url" as const), media_type: text, data: text, url: text },
      { requiredKeys: ["type"] },
    ),
    width: size,
    height: size,
  },
  { requiredKeys: ["type"] },
);
const blocks: Record<ContentBlock["type"], fc.Arbitrary<ContentBlock>> = {
  text: textBlock,
  image: imageBlock,
  image_url: fc.record(
    {
      type: fc.constant("image_url" as const),
      image_url: fc.record({ url: text, detail: fc.constantFrom("auto" as const, "low" as const, "high" as const) }, { requiredKeys: ["url"] }),
      width: size,
      height: size,
    },
    { requiredKeys: ["type", "image_url"] },
  ),
  tool_use: fc.record({
    type: fc.constant("tool_use" as const),
    id: nonEmpty,
    name: nonEmpty,
    input: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  }),
  tool_result: fc.record(
    {
      type: fc.constant("tool_result" as const),
      tool_use_id: nonEmpty,
      content: fc.oneof(text, fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 3 })),
      is_error: fc.boolean(),
    },
    { requiredKeys: ["type", "tool_use_id"] },
  ),
  thinking: fc.record({ type: fc.constant("thinking" as const), thinking: text, signature: text }, { requiredKeys: ["type", "thinking"] }),
  redacted_thinking: fc.record({ type: fc.constant("redacted_thinking" as const), data: text }),
  compaction: fc.oneof(
    fc.record({ type: fc.constant("compaction" as const), provider: fc.constant("anthropic" as const), data: fc.record({ type: fc.constant("compaction" as const), content: fc.option(text, { nil: null }) }) }),
    fc.record({ type: fc.constant("compaction" as const), provider: fc.constant("openai" as const), data: fc.record({ type: fc.constant("compaction" as const), id: nonEmpty, encrypted_content: text }) }),
  ),
};
export const contentBlockArb: fc.Arbitrary<ContentBlock> = fc.oneof(...Object.values(blocks));

const toolCall = fc.record({
  id: nonEmpty,
  type: fc.constant("function" as const),
  function: fc.record({ name: nonEmpty, arguments: text }),
});

/** Valid RFC 3339 date-times, in the forms ajv-formats accepts. */
export const dateTimeArb: fc.Arbitrary<string> = fc.oneof(
  fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }).map((d) => d.toISOString()),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
      fc.constantFrom("T", "t", " "),
      fc.constantFrom("Z", "z", "+00:00", "-05:30", "+0530", "+14"),
    )
    .map(([y, mo, d, h, mi, s, sep, zone]) => `${pad(y, 4)}-${pad(mo)}-${pad(d)}${sep}${pad(h)}:${pad(mi)}:${pad(s)}${zone}`),
  fc.constantFrom("2016-12-31T23:59:60Z", "2024-02-29T12:00:00.5+01:00", "2017-01-01T00:59:60+01:00"),
);

const KNOWN_METADATA = new Set(["id", "timestamp", "critical", "ephemeral", "source", "runId", "summary", "hook", "event", "scope"]);
const extraKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !KNOWN_METADATA.has(k) && k !== "__proto__");

const metadataArb: fc.Arbitrary<MessageMetadata> = fc
  .tuple(
    fc.record(
      {
        id: nonEmpty,
        timestamp: dateTimeArb,
        critical: fc.boolean(),
        ephemeral: fc.boolean(),
        source: text,
        runId: nonEmpty,
        summary: fc.record(
          { covers: fc.array(nonEmpty, { maxLength: 3 }), strategy: text, summarizer: text, tokensSaved: fc.nat() },
          { requiredKeys: ["covers"] },
        ),
        hook: text,
        event: text,
        scope: fc.constant("turn" as const),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

const content = fc.oneof(text, fc.array(contentBlockArb, { maxLength: 4 }));
const optional = { name: nonEmpty, metadata: metadataArb };

export const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record(
    { role: fc.constantFrom("system" as const, "developer" as const, "user" as const), content, ...optional },
    { requiredKeys: ["role", "content"] },
  ),
  fc.record(
    { role: fc.constant("assistant" as const), content, tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 3 }), ...optional },
    { requiredKeys: ["role", "content"] },
  ),
  fc.record(
    { role: fc.constant("assistant" as const), content: fc.constant(null), tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 3 }), ...optional },
    { requiredKeys: ["role", "content", "tool_calls"] },
  ),
  fc.record({ role: fc.constant("tool" as const), content, tool_call_id: nonEmpty, ...optional }, { requiredKeys: ["role", "content", "tool_call_id"] }),
);

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}
