import { z } from "zod";
import type { Message } from "../generated/message.js";
import { createError } from "../errors.js";
import { findNonJsonValue } from "./json-value.js";
import { assertValid, issuesError } from "./validation-error.js";
import { dateTimeString, jsonInteger, jsonObject, nonEmptyString } from "./json-schema-types.js";

/**
 * The Message schema — the source of truth: contracts/schemas/message.schema.json is emitted from
 * it and the Message types generated from that file (`npm run contracts`).
 * test/contracts/schema-zod-drift.test.ts runs the shared fixtures and random messages through
 * both; test/types/contracts.test-d.ts proves `z.infer` equals the generated `Message` type.
 *
 * Block unions are discriminated on `type`, which is what the schema's `anyOf` amounts to (every
 * block has a distinct `const` type and no extra keys), and lets an error name the field inside
 * the block rather than "matches none of seven shapes".
 */

export const roleSchema = z.enum(["system", "developer", "user", "assistant", "tool"]).meta({ id: "Role" });

export const textBlockSchema = z
  .strictObject({
    type: z.literal("text"),
    text: z.string(),
  })
  .meta({ id: "TextBlock" });

const imageSize = jsonInteger({ minimum: 1 }).optional();

export const imageBlockSchema = z.strictObject({
  type: z.literal("image"),
  source: z
    .strictObject({
      type: z.enum(["base64", "url"]),
      media_type: z.string().optional(),
      data: z.string().optional(),
      url: z.string().optional(),
    })
    .optional(),
  width: imageSize,
  height: imageSize,
}).meta({
  id: "ImageBlock",
  description: "Anthropic-style image. width/height (pixels) let the token counter price it exactly; without them a documented default is used.",
});

export const imageUrlBlockSchema = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({
    url: z.string(),
    detail: z.enum(["auto", "low", "high"]).optional(),
  }),
  width: imageSize,
  height: imageSize,
}).meta({ id: "ImageUrlBlock", description: "OpenAI-style image part." });

export const toolUseBlockSchema = z.strictObject({
  type: z.literal("tool_use"),
  id: nonEmptyString,
  name: nonEmptyString,
  input: jsonObject,
}).meta({ id: "ToolUseBlock" });

export const toolResultBlockSchema = z.strictObject({
  type: z.literal("tool_result"),
  tool_use_id: nonEmptyString,
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]))]).optional(),
  is_error: z.boolean().optional(),
}).meta({ id: "ToolResultBlock" });

export const thinkingBlockSchema = z.strictObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
}).meta({ id: "ThinkingBlock" });

export const redactedThinkingBlockSchema = z.strictObject({
  type: z.literal("redacted_thinking"),
  data: z.string(),
}).meta({ id: "RedactedThinkingBlock" });

/**
 * A provider's own compaction state (Anthropic `compaction` block, OpenAI Responses `compaction`
 * item), kept opaque: `data` is the provider's block or item exactly as it arrived (every key, in
 * its order), and the adapter of the same provider sends it back as it is — never re-read as text,
 * never edited, never sent to another provider.
 */
export const compactionBlockSchema = z.strictObject({
  type: z.literal("compaction"),
  provider: z.enum(["anthropic", "openai"]).meta({ description: "Whose compaction state this is; only that provider's adapter sends it." }),
  data: z
    .looseObject({
      type: z.literal("compaction"),
      content: z.union([z.string(), z.null()]).optional().meta({ description: "Anthropic: the summary text (null when the compaction failed)." }),
      encrypted_content: z.string().optional().meta({ description: "OpenAI: the encrypted compaction state." }),
      id: z.string().optional().meta({ description: "OpenAI: the compaction item's id." }),
    })
    .meta({ description: "The provider's block or item verbatim (JSON), sent back unchanged." }),
}).meta({ id: "CompactionBlock" });

export const contentBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  imageBlockSchema,
  imageUrlBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  compactionBlockSchema,
]).meta({ id: "ContentBlock" });

export const toolCallSchema = z.strictObject({
  id: nonEmptyString,
  type: z.literal("function"),
  function: z.strictObject({
    name: nonEmptyString,
    arguments: z.string().meta({ description: "JSON-encoded arguments, as the model produced them." }),
  }),
}).meta({ id: "ToolCall" });

/** Known keys are typed; any other key is allowed (`additionalProperties: true`). */
export const summaryInfoSchema = z.looseObject({
  covers: z.array(z.string()),
  strategy: z.string().optional(),
  summarizer: z.string().optional(),
}).meta({ id: "SummaryInfo", description: "Marks a summary (checkpoint) message and names the stored messages it stands for." });

export const messageMetadataSchema = z
  .looseObject({
    id: nonEmptyString.optional().meta({ description: "Stable message id; assigned by the context manager when missing." }),
    timestamp: dateTimeString.optional().meta({ description: "ISO-8601; assigned when missing." }),
    critical: z.boolean().optional().meta({ description: "Never compacted: kept verbatim in every window." }),
    ephemeral: z.boolean().optional().meta({ description: "Shown in windows of the live session, never persisted." }),
    source: z.string().optional().meta({ description: 'Who added it: "hook", "user", a module name …' }),
    runId: nonEmptyString.optional().meta({ description: "The agent run this message belongs to (see clearRun and retention)." }),
    summary: summaryInfoSchema.optional(),
    hook: z.string().optional().meta({ description: "For injected messages: the hook that injected it." }),
    event: z.string().optional().meta({ description: "For injected messages: the event during which it was injected." }),
    scope: z.enum(["turn"]).optional().meta({
      description:
        '"turn": a hook\'s stored system/developer injection made after the session started (a turn note): it belongs to the turn it was injected in — sent in stored order, counted and cut with that turn — instead of being an instruction kept first in every window. Set by the coordinator (processHookResult).',
    }),
  })
  .meta({ id: "MessageMetadata" });

/**
 * The role rules in JSON Schema words (if/then), for the emitted message.schema.json; the
 * refinement below states them for zod. Two statements of one table, side by side; the shared
 * fixtures (test/contracts/schema-zod-drift.test.ts) run through both.
 */
const ROLE_RULES_AS_JSON_SCHEMA = [
  {
    $comment: "A tool message answers one call: tool_call_id is required.",
    if: { properties: { role: { const: "tool" } }, required: ["role"] },
    then: { properties: { tool_call_id: true }, required: ["tool_call_id"] },
  },
  {
    $comment: "Only assistant messages carry tool_calls.",
    if: { properties: { tool_calls: true }, required: ["tool_calls"] },
    then: { properties: { role: { const: "assistant" } } },
  },
  {
    $comment: "content is null only on an assistant message that carries tool_calls.",
    if: { properties: { content: { type: "null" } }, required: ["content"] },
    then: { properties: { role: { const: "assistant" }, tool_calls: true }, required: ["tool_calls"] },
  },
];

/**
 * The role rules are the schema's `allOf` of if/then pairs. They sit in a refinement, so
 * they are checked once the shape is right (zod skips refinements of a malformed object).
 *
 * | when                     | then                                        |
 * |--------------------------|---------------------------------------------|
 * | role is "tool"           | tool_call_id is present                     |
 * | tool_calls is present    | role is "assistant"                         |
 * | content is null          | role is "assistant" and tool_calls present  |
 *
 * `z.compile` generates a fast path for the whole schema (about twice as fast on the addMessage
 * hot path); a value it refuses is re-parsed by the ordinary runtime, so issues are unchanged.
 * The drift tests run this compiled schema, not a twin of it.
 */
export const messageSchema = z.compile(
  z
    .strictObject({
      role: roleSchema,
      content: z.union([z.string(), z.array(contentBlockSchema), z.null()]).meta({
        description: "Text, or a list of content blocks. null only on an assistant message that carries tool_calls.",
      }),
      name: nonEmptyString.optional().meta({ description: "Participant name, or the tool's name on a tool message." }),
      tool_calls: z
        .array(toolCallSchema)
        .min(1)
        .optional()
        .meta({ description: "OpenAI-style tool calls; assistant messages only, at least one (providers reject an empty list)." }),
      tool_call_id: nonEmptyString.optional().meta({ description: "The id of the call this tool message answers; tool messages only." }),
      metadata: messageMetadataSchema.optional(),
    })
    .meta({
      title: "Message",
      description:
        "One chat message as stored by a context manager. OpenAI style (assistant.tool_calls[].id <-> tool.tool_call_id) and Anthropic block style (tool_use.id <-> tool_result.tool_use_id) are both understood.",
      allOf: ROLE_RULES_AS_JSON_SCHEMA,
    })
    .superRefine((message, ctx) => {
      if (message.role === "tool" && message.tool_call_id === undefined) {
        ctx.addIssue({ code: "custom", path: ["tool_call_id"], message: 'the id of the call it answers: a tool message needs tool_call_id' });
      }
      if (message.tool_calls !== undefined && message.role !== "assistant") {
        ctx.addIssue({ code: "custom", path: ["tool_calls"], message: `no tool_calls on a "${message.role}" message: only assistant messages carry them` });
      }
      if (message.content === null && (message.role !== "assistant" || message.tool_calls === undefined)) {
        ctx.addIssue({ code: "custom", path: ["content"], message: "a string or content blocks: content may be null only on an assistant message with tool_calls" });
      }
    }),
);

/**
 * `value` as a Message, or AmplifierError INVALID_MESSAGE whose details give the JSON `path` of
 * the first bad field (`message.tool_calls[0].function.name`), what was `expected`, what was
 * `given`, and every problem in `issues` when there are several.
 *
 * Besides the schema, a message holds only what JSON holds (json-value.ts): no NaN, BigInt,
 * Date, Map, function, cycle … anywhere, `metadata` and `tool_use.input` included — the stores
 * keep JSON, so anything else would read differently after a resume (contracts/CONTEXT.md).
 *
 * Returns `value` itself (no copy, nothing stripped or defaulted): on the addMessage hot path a
 * caller that wants a private copy makes it once.
 */
export function validateMessage(value: unknown, path = "message"): Message {
  assertValid(messageSchema, value, "INVALID_MESSAGE", path);
  assertJson(value, path);
  return value as Message;
}

/**
 * Every element a Message, or INVALID_MESSAGE for the first bad one, with its `index` and a path
 * such as `messages[3].role`. All or nothing: the caller stores none of a batch with a bad element.
 */
export function validateMessages(values: unknown, path = "messages"): Message[] {
  if (!Array.isArray(values)) {
    throw createError("INVALID_MESSAGE", undefined, { path, expected: "an array of messages", given: values });
  }
  for (let index = 0; index < values.length; index++) {
    assertValid(messageSchema, values[index], "INVALID_MESSAGE", `${path}[${index}]`, { index });
    assertJson(values[index], `${path}[${index}]`, { index });
  }
  return values as Message[];
}

/** Whether `value` is a Message; never throws. */
export function isValidMessage(value: unknown): value is Message {
  return messageSchema.safeParse(value).success && findNonJsonValue(value, "") === undefined;
}

function assertJson(value: unknown, path: string, details: Record<string, unknown> = {}): void {
  const problem = findNonJsonValue(value, path);
  if (problem !== undefined) throw issuesError("INVALID_MESSAGE", [problem], { details });
}
