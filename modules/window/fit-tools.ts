/**
 * Tool definitions in the caller's framework shape, as the ToolDefinitions the counter prices
 * (they count against the budget like the provider counts them).
 *
 * | given                                                            | read as                                  |
 * |------------------------------------------------------------------|------------------------------------------|
 * | ours / OpenAI Chat: `{ type: "function", function: { name, description?, parameters? } }` | as is             |
 * | OpenAI Responses: `{ type: "function", name, description?, parameters }` | fromApiTool                       |
 * | Anthropic: `{ name, description?, input_schema }`               | fromApiTool                              |
 * | LangChain tools (`{ name, description, schema }`), MCP-style `{ name, inputSchema }` | parameters from the schema |
 * | AI SDK ToolSet: `{ [name]: { description?, inputSchema } }` (`parameters` in older versions) | one definition per entry |
 *
 * A schema is a JSON Schema object, an AI SDK `jsonSchema(…)` (its `.jsonSchema`), a Standard
 * Schema with JSON Schema output (zod ≥ 4.2: `~standard.jsonSchema`), or anything with
 * `toJSONSchema()` (zod 4). Anything else: WINDOW_FIT/INVALID_OPTIONS naming the tool — a tool
 * the window cannot price would make the budget a guess.
 */
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { fromApiTool, type AnthropicTool, type ResponsesTool } from "@amplifier-ts/adapters";
import { fitError } from "./fit-errors.js";

export function toolDefinitions(tools: unknown): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (Array.isArray(tools)) return tools.map((tool, i) => definitionOf(tool, `tools[${i}]`, undefined));
  if (typeof tools === "object") return Object.entries(tools as Record<string, unknown>).map(([name, tool]) => definitionOf(tool, `tools.${name}`, name));
  throw fitError("INVALID_OPTIONS", "tools is an array of tool definitions or an AI SDK ToolSet record", { path: "tools", expected: "an array or a record of tools", given: typeof tools });
}

function definitionOf(tool: unknown, path: string, key: string | undefined): ToolDefinition {
  if (typeof tool !== "object" || tool === null) throw invalid(path, tool, "a tool definition object");
  const t = tool as Record<string, unknown>;
  const fn = t.function as Record<string, unknown> | undefined;
  if (t.type === "function" && typeof fn === "object" && fn !== null && typeof fn.name === "string") {
    return { type: "function", function: { name: fn.name, ...described(fn.description), ...(fn.parameters === undefined ? {} : { parameters: schemaOf(fn.parameters, `${path}.function.parameters`) }) } };
  }
  if (key === undefined && typeof t.name === "string") {
    if (t.type === "function" && "parameters" in t) return fromApiTool({ ...(t as unknown as ResponsesTool), parameters: schemaOf(t.parameters, `${path}.parameters`) });
    if ("input_schema" in t) return fromApiTool({ ...(t as unknown as AnthropicTool), input_schema: schemaOf(t.input_schema, `${path}.input_schema`) });
  }
  const name = key ?? t.name;
  if (typeof name !== "string" || name === "") throw invalid(path, tool, "a tool with a name");
  const schema = t.inputSchema ?? t.schema ?? t.parameters ?? t.input_schema;
  return { type: "function", function: { name, ...described(t.description), ...(schema === undefined ? {} : { parameters: schemaOf(schema, path) }) } };
}

/** A JSON Schema object from the schema shapes the frameworks use (see the header). */
function schemaOf(schema: unknown, path: string): Record<string, unknown> {
  if (typeof schema !== "object" || schema === null) throw invalid(path, schema, "a JSON Schema object, an AI SDK jsonSchema() or a zod schema");
  const s = schema as Record<string, unknown> & { toJSONSchema?: () => unknown };
  const standard = (s["~standard"] as { jsonSchema?: { input?: (options: { target: string }) => unknown } } | undefined)?.jsonSchema;
  if (typeof s.jsonSchema === "object" && s.jsonSchema !== null) return s.jsonSchema as Record<string, unknown>;
  if (typeof standard?.input === "function") return standard.input({ target: "draft-07" }) as Record<string, unknown>;
  if (typeof s.toJSONSchema === "function") return s.toJSONSchema() as Record<string, unknown>;
  if ("_def" in s || "_zod" in s || "~standard" in s) {
    throw invalid(path, "a schema without JSON Schema output", "a JSON Schema object, an AI SDK jsonSchema(), or zod ≥ 4 (zod 3: convert with zod-to-json-schema first)");
  }
  return s;
}

function described(description: unknown): { description?: string } {
  return typeof description === "string" ? { description } : {};
}

function invalid(path: string, given: unknown, expected: string) {
  return fitError("INVALID_OPTIONS", `${path} is not a tool definition fitWindow can price`, { path, expected, given: typeof given === "object" ? Object.keys(given ?? {}).join(", ") : given });
}
