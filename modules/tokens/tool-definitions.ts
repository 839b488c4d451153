/**
 * Tokens of the `tools` array of a request — the function definitions the provider renders
 * into the prompt. The rule is OpenAI's cookbook `num_tokens_for_tools`, API-verified on flat
 * schemas (gpt-4: 105, gpt-4o-mini: 101 for the `get_current_weather` example):
 *
 *   total = Σ over functions [ functionInit + tokens("name:description")
 *                               + (propertiesInit + Σ property) if it has properties ]
 *           + functionsEnd                                  (once, when there is any tool)
 *   property = propertyKey + tokens("key:type:description")
 *              + (enumInit + Σ (enumItem + tokens(value))) if it has an enum
 *
 * A trailing "." of a description is dropped (the provider renders it as a comment without
 * one). Where the cookbook is silent we extend it conservatively:
 * - a missing description drops the ":description" part;
 * - `type: ["string", "null"]` renders as "string | null", a missing type as "any";
 * - every other keyword of a property (`items`, nested `properties`, `anyOf`, `format`,
 *   `default`, `minimum` …) and `$defs` / `definitions` at the top are counted as their compact
 *   JSON text — more tokens than the provider's rendering, never fewer in practice.
 * `required` and `additionalProperties` at the top level only add `?` markers the constants
 * already cover (the verified example has `required`).
 */
import { createError } from "@amplifier-ts/contracts";
import type { Tokenizer } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";
import type { ToolDefinitionFormat } from "./chat-format.js";

/** Tokens of the tool definitions alone (without messages or priming); 0 for no tools. */
export function countToolDefinitions(
  tools: readonly ToolDefinition[],
  tokenizer: Tokenizer,
  format: ToolDefinitionFormat,
  cache?: Map<string, number>,
): number {
  if (tools.length === 0) return 0;
  let total = format.functionsEnd;
  for (const tool of tools) {
    if (!cache) {
      total += countFunction(tool, tokenizer, format);
      continue;
    }
    // Keyed by the definition's JSON: tool arrays are resent every turn, often rebuilt, and a
    // changed definition must never reuse a count. Serialising a definition is far cheaper
    // than tokenizing it.
    const key = compactJson(tool.function);
    let count = cache.get(key);
    if (count === undefined) {
      count = countFunction(tool, tokenizer, format);
      if (cache.size >= TOOL_CACHE_CAPACITY) cache.delete(cache.keys().next().value as string);
      cache.set(key, count);
    }
    total += count;
  }
  return total;
}

/** Distinct tool definitions remembered per tokenizer (oldest forgotten first). */
export const TOOL_CACHE_CAPACITY = 1_000;

/** Throws INVALID_ARGUMENT naming the first malformed tool definition. */
export function validateToolDefinitions(tools: unknown, path = "tools"): asserts tools is ToolDefinition[] {
  if (!Array.isArray(tools)) fail(path, "an array of tool definitions", tools);
  tools.forEach((tool: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isRecord(tool)) fail(at, 'a tool definition { type: "function", function: { name, … } }', tool);
    const fn = tool.function;
    if (!isRecord(fn)) fail(`${at}.function`, "an object with name, description?, parameters?", fn);
    if (typeof fn.name !== "string" || fn.name === "") fail(`${at}.function.name`, "a non-empty string", fn.name);
    if (fn.description !== undefined && typeof fn.description !== "string") {
      fail(`${at}.function.description`, "a string", fn.description);
    }
    if (fn.parameters !== undefined && !isRecord(fn.parameters)) {
      fail(`${at}.function.parameters`, "a JSON Schema object", fn.parameters);
    }
    const props = isRecord(fn.parameters) ? fn.parameters.properties : undefined;
    if (props !== undefined && !isRecord(props)) {
      fail(`${at}.function.parameters.properties`, "an object of property schemas", props);
    }
  });
}

function countFunction(tool: ToolDefinition, tokenizer: Tokenizer, format: ToolDefinitionFormat): number {
  const { name, description, parameters } = tool.function;
  let total = format.functionInit + tokenizer.count(joinLine(name, description === undefined ? [] : [description]));
  if (!parameters) return total;
  const properties = isRecord(parameters.properties) ? parameters.properties : {};
  const keys = Object.keys(properties);
  if (keys.length > 0) {
    total += format.propertiesInit;
    for (const key of keys) total += countProperty(key, properties[key], tokenizer, format);
  }
  for (const defs of ["$defs", "definitions"]) {
    if (parameters[defs] !== undefined) total += tokenizer.count(compactJson(parameters[defs]));
  }
  return total;
}

function countProperty(key: string, schema: unknown, tokenizer: Tokenizer, format: ToolDefinitionFormat): number {
  let total = format.propertyKey;
  if (!isRecord(schema)) return total + tokenizer.count(`${key}:any`);
  const { type, description, enum: values, ...rest } = schema;
  if (Array.isArray(values)) {
    total += format.enumInit;
    for (const value of values) total += format.enumItem + tokenizer.count(typeof value === "string" ? value : compactJson(value));
  }
  const parts = [renderType(type)];
  if (typeof description === "string") parts.push(description);
  total += tokenizer.count(joinLine(key, parts));
  if (Object.keys(rest).length > 0) total += tokenizer.count(compactJson(rest));
  return total;
}

/** "name:part:part…" with a trailing "." of the last part removed (the cookbook's line). */
function joinLine(name: string, parts: string[]): string {
  const line = [name, ...parts].join(":");
  return parts.length > 0 && line.endsWith(".") ? line.slice(0, -1) : line;
}

function renderType(type: unknown): string {
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.map(String).join(" | ");
  return "any";
}

function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(path: string, expected: string, given: unknown): never {
  throw createError("INVALID_ARGUMENT", "Invalid tool definition", { module: "@amplifier-ts/tokens", path, expected, given });
}
