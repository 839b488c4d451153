import { ContextExampleError, describe } from "./errors.js";

/**
 * Minimal validation of the Message contract (amplifier-ts contracts/schemas/message.schema.json):
 * the fields this module relies on to keep tool calls and results paired, nothing more. Unknown
 * extra fields are let through untouched — the host's schema is the strict one.
 *
 * Throws INVALID_MESSAGE whose `details.path` names the field (`message.tool_calls[0].function.name`,
 * or `messages[2].role` with `details.index` for a list).
 */
const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/** @param {unknown} message @param {string} [at] */
export function validateMessage(message, at = "message") {
  const fail = (path, expected, given, extra = {}) => {
    throw new ContextExampleError("INVALID_MESSAGE", `${path}: expected ${expected}, got ${describe(given)}`, {
      path,
      expected,
      given,
      ...extra,
    });
  };
  if (!isObject(message)) fail(at, "a message object", message);
  const m = /** @type {Record<string, unknown>} */ (message);

  if (!ROLES.has(/** @type {string} */ (m.role))) fail(`${at}.role`, `one of ${[...ROLES].join(", ")}`, m.role);
  if (!("content" in m)) fail(`${at}.content`, "a string, a list of content blocks, or null", undefined);
  if (m.content === null) {
    if (m.role !== "assistant" || !Array.isArray(m.tool_calls)) fail(`${at}.content`, "text or blocks (null only on an assistant message with tool_calls)", null);
  } else if (Array.isArray(m.content)) {
    m.content.forEach((block, i) => validateBlock(block, `${at}.content[${i}]`, fail));
  } else if (typeof m.content !== "string") {
    fail(`${at}.content`, "a string, a list of content blocks, or null", m.content);
  }

  if (m.name !== undefined && !isNonEmptyString(m.name)) fail(`${at}.name`, "a non-empty string", m.name);
  if (m.role === "tool" && !isNonEmptyString(m.tool_call_id)) fail(`${at}.tool_call_id`, "the id of the call this tool message answers", m.tool_call_id);
  if (m.role !== "tool" && m.tool_call_id !== undefined) fail(`${at}.tool_call_id`, "no tool_call_id except on a tool message", m.tool_call_id);
  if (m.tool_calls !== undefined) {
    if (m.role !== "assistant") fail(`${at}.tool_calls`, "tool_calls only on an assistant message", m.tool_calls);
    if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) fail(`${at}.tool_calls`, "a non-empty array of tool calls", m.tool_calls);
    m.tool_calls.forEach((call, i) => {
      const path = `${at}.tool_calls[${i}]`;
      if (!isObject(call)) fail(path, "a tool call object", call);
      if (!isNonEmptyString(call.id)) fail(`${path}.id`, "a non-empty string", call.id);
      if (call.type !== "function") fail(`${path}.type`, '"function"', call.type);
      if (!isObject(call.function)) fail(`${path}.function`, "{ name, arguments }", call.function);
      if (!isNonEmptyString(call.function.name)) fail(`${path}.function.name`, "a non-empty string", call.function.name);
      if (typeof call.function.arguments !== "string") fail(`${path}.function.arguments`, "a JSON-encoded string", call.function.arguments);
    });
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) fail(`${at}.metadata`, "an object", m.metadata);
}

/** Validate a whole list first (setMessages is all or nothing). */
export function validateMessages(messages) {
  if (!Array.isArray(messages)) {
    throw new ContextExampleError("INVALID_MESSAGE", `messages: expected an array of messages, got ${describe(messages)}`, {
      path: "messages",
      expected: "an array of messages",
      given: messages,
    });
  }
  messages.forEach((message, index) => {
    try {
      validateMessage(message, `messages[${index}]`);
    } catch (error) {
      error.details.index = index;
      throw error;
    }
  });
}

function validateBlock(block, path, fail) {
  if (!isObject(block)) fail(path, "a content block object", block);
  const text = (field) => {
    if (typeof block[field] !== "string") fail(`${path}.${field}`, "a string", block[field]);
  };
  switch (block.type) {
    case "text":
      return text("text");
    case "thinking":
      return text("thinking");
    case "redacted_thinking":
      return text("data");
    case "image":
      if (block.source !== undefined && !isObject(block.source)) fail(`${path}.source`, "an object", block.source);
      return;
    case "image_url":
      if (!isObject(block.image_url) || typeof block.image_url.url !== "string") fail(`${path}.image_url.url`, "a string", block.image_url?.url);
      return;
    case "tool_use":
      if (!isNonEmptyString(block.id)) fail(`${path}.id`, "a non-empty string", block.id);
      if (!isNonEmptyString(block.name)) fail(`${path}.name`, "a non-empty string", block.name);
      if (!isObject(block.input)) fail(`${path}.input`, "an object", block.input);
      return;
    case "tool_result":
      if (!isNonEmptyString(block.tool_use_id)) fail(`${path}.tool_use_id`, "a non-empty string", block.tool_use_id);
      if (Array.isArray(block.content)) block.content.forEach((inner, i) => validateBlock(inner, `${path}.content[${i}]`, fail));
      else if (block.content !== undefined && typeof block.content !== "string") fail(`${path}.content`, "a string or text/image blocks", block.content);
      return;
    default:
      fail(`${path}.type`, "text, image, image_url, tool_use, tool_result, thinking or redacted_thinking", block.type);
  }
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value) {
  return typeof value === "string" && value.length > 0;
}
