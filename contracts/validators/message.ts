import { z } from "zod";
import type { Message } from "../generated/message.js";
import { createError } from "../errors.js";
import { assertValid } from "./validation-error.js";
import { dateTimeString, jsonInteger, jsonObject, nonEmptyString } from "./json-schema-types.js";

/**
 * zod mirror of contracts/schemas/message.schema.json (the source of truth).
 * test/contracts/schema-zod-drift.test.ts runs the shared fixtures and random messages through
 * both; test/types/contracts.test-d.ts proves `z.infer` equals the generated `Message` type.
 *
 * Block unions are discriminated on `type`, which is what the schema's `anyOf` amounts to (every
 * block has a distinct `const` type and no extra keys), and lets an error name the field inside
 * the block rather than "matches none of seven shapes".
 */

export const roleSchema = z.enum(["system", "developer", "user", "assistant", "tool"]);

export const textBlockSchema = z.strictObject({
  type: z.literal("text"),
  text: z.string(),
});

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
});

export const imageUrlBlockSchema = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({
    url: z.string(),
    detail: z.enum(["auto", "low", "high"]).optional(),
  }),
  width: imageSize,
  height: imageSize,
});

export const toolUseBlockSchema = z.strictObject({
  type: z.literal("tool_use"),
  id: nonEmptyString,
  name: nonEmptyString,
  input: jsonObject,
});

export const toolResultBlockSchema = z.strictObject({
  type: z.literal("tool_result"),
  tool_use_id: nonEmptyString,
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]))]).optional(),
  is_error: z.boolean().optional(),
});

export const thinkingBlockSchema = z.strictObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});

export const redactedThinkingBlockSchema = z.strictObject({
  type: z.literal("redacted_thinking"),
  data: z.string(),
});

export const contentBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  imageBlockSchema,
  imageUrlBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
]);

export const toolCallSchema = z.strictObject({
  id: nonEmptyString,
  type: z.literal("function"),
  function: z.strictObject({
    name: nonEmptyString,
    arguments: z.string(),
  }),
});

/** Known keys are typed; any other key is allowed (`additionalProperties: true`). */
export const summaryInfoSchema = z.looseObject({
  covers: z.array(z.string()),
  strategy: z.string().optional(),
  summarizer: z.string().optional(),
});

export const messageMetadataSchema = z.looseObject({
  id: nonEmptyString.optional(),
  timestamp: dateTimeString.optional(),
  critical: z.boolean().optional(),
  ephemeral: z.boolean().optional(),
  source: z.string().optional(),
  runId: nonEmptyString.optional(),
  summary: summaryInfoSchema.optional(),
  hook: z.string().optional(),
  event: z.string().optional(),
  scope: z.literal("turn").optional(),
});

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
      content: z.union([z.string(), z.array(contentBlockSchema), z.null()]),
      name: nonEmptyString.optional(),
      tool_calls: z.array(toolCallSchema).min(1).optional(),
      tool_call_id: nonEmptyString.optional(),
      metadata: messageMetadataSchema.optional(),
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
 * Returns `value` itself (no copy, nothing stripped or defaulted): on the addMessage hot path a
 * caller that wants a private copy makes it once.
 */
export function validateMessage(value: unknown, path = "message"): Message {
  return assertValid(messageSchema, value, "INVALID_MESSAGE", path) as Message;
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
  }
  return values as Message[];
}

/** Whether `value` is a Message; never throws. */
export function isValidMessage(value: unknown): value is Message {
  return messageSchema.safeParse(value).success;
}
