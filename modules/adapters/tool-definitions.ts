/**
 * Tool definitions (stored in the OpenAI function shape, contracts/provider.ts ToolDefinition) in
 * each API's shape, and back. A definition without `parameters` gets the empty object schema
 * every API accepts; names are checked once here (the APIs' pattern: 1–64 of [A-Za-z0-9_-]).
 */
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { adapterError, type AdapterName } from "./adapter-errors.js";

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}
export interface ResponsesTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}
export type AnthropicTool = AnthropicCustomTool | AnthropicNativeTool;
export interface AnthropicCustomTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: { type: "ephemeral" };
}
/** One of Anthropic's own tools (`{ type: "memory_20250818", name: "memory" }`): sent as the definition's `native.anthropic`. */
export interface AnthropicNativeTool {
  type: string;
  name: string;
  cache_control?: { type: "ephemeral" };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const EMPTY_SCHEMA = { type: "object", properties: {} };

export function checkedTools(tools: readonly ToolDefinition[] | undefined, adapter: AdapterName): readonly ToolDefinition[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw adapterError("INVALID_INPUT", { adapter, direction: "to", index: -1, path: "options.tools", rule: "tools is an array of tool definitions", expected: "ToolDefinition[]", given: tools });
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const name = tool?.function?.name;
    if (tool?.type !== "function" || typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw adapterError("INVALID_INPUT", { adapter, direction: "to", index, path: `options.tools[${index}]`, rule: "a tool is { type: \"function\", function: { name } } with a name of 1–64 letters, digits, _ or -", expected: "a ToolDefinition", given: tool });
    }
    if (seen.has(name)) throw adapterError("INVALID_INPUT", { adapter, direction: "to", index, path: `options.tools[${index}].function.name`, rule: "tool names are unique", given: name });
    seen.add(name);
    const native = tool.native?.anthropic;
    if (native !== undefined && (typeof native.type !== "string" || native.type === "" || native.type === "custom" || native.name !== name)) {
      throw adapterError("INVALID_INPUT", { adapter, direction: "to", index, path: `options.tools[${index}].native.anthropic`, rule: "native.anthropic is { type, name } with one of Anthropic's tool types and the function's name", expected: `{ type: "memory_20250818", name: ${JSON.stringify(name)} }`, given: native });
    }
    const parameters = tool.function.parameters;
    if (parameters !== undefined && (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))) {
      throw adapterError("INVALID_INPUT", { adapter, direction: "to", index, path: `options.tools[${index}].function.parameters`, rule: "parameters is a JSON Schema object", given: parameters });
    }
  });
  return tools;
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatTool[] {
  return tools.map((t) => ({ type: "function", function: { name: t.function.name, ...describe(t), parameters: t.function.parameters ?? EMPTY_SCHEMA } }));
}

export function toResponsesTools(tools: readonly ToolDefinition[]): ResponsesTool[] {
  return tools.map((t) => ({ type: "function", name: t.function.name, ...describe(t), parameters: t.function.parameters ?? EMPTY_SCHEMA, strict: false }));
}

/** A tool Anthropic knows by its own type (`native.anthropic`) is sent as that; every other as a custom tool with its schema. */
export function toAnthropicTools(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return tools.map((t) => (t.native?.anthropic ? { type: t.native.anthropic.type, name: t.native.anthropic.name } : { name: t.function.name, ...describe(t), input_schema: objectSchema(t.function.parameters) }));
}

/** Back to the stored shape, from any of the three. */
export function fromApiTool(tool: ChatTool | ResponsesTool | AnthropicTool): ToolDefinition {
  if ("function" in tool) return { type: "function", function: { name: tool.function.name, ...optionalDescription(tool.function.description), parameters: tool.function.parameters } };
  if ("input_schema" in tool) return { type: "function", function: { name: tool.name, ...optionalDescription(tool.description), parameters: tool.input_schema } };
  // One of Anthropic's own tools: its schema is the API's; the function shape keeps the name only.
  if (!("parameters" in tool)) return { type: "function", function: { name: tool.name }, native: { anthropic: { type: tool.type, name: tool.name } } };
  return { type: "function", function: { name: tool.name, ...optionalDescription(tool.description), parameters: tool.parameters } };
}

function describe(tool: ToolDefinition): { description?: string } {
  return optionalDescription(tool.function.description);
}

function optionalDescription(description: string | undefined): { description?: string } {
  return description === undefined ? {} : { description };
}

/** Anthropic's input_schema must be an object schema. */
function objectSchema(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  if (parameters === undefined) return EMPTY_SCHEMA;
  return parameters.type === undefined ? { type: "object", ...parameters } : parameters;
}
