/**
 * `params.tools` of a provider call → the tool definitions the counter prices (OpenAI's function
 * shape, the one @amplifier-ts/tokens counts). A provider-defined tool (`type: "provider"`, run by
 * the provider: web search, code interpreter …) has no schema in the request; it is counted as a
 * function named after it whose description is its id and arguments, so it is never free.
 */
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { invalidArgument } from "./invalid-argument.js";
import type { ProviderTool } from "./sdk-types.js";

export function toolDefinitions(tools: readonly ProviderTool[] | undefined): ToolDefinition[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw invalidArgument("params.tools", "an array of function and provider tools", tools);
  return tools.map((tool, i): ToolDefinition => {
    if (tool?.type === "function") {
      return { type: "function", function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema as Record<string, unknown> } };
    }
    if (tool?.type === "provider") {
      return { type: "function", function: { name: tool.name, description: `${tool.id} ${JSON.stringify(tool.args ?? {})}`, parameters: { type: "object", properties: {} } } };
    }
    throw invalidArgument(`params.tools[${i}].type`, '"function" or "provider"', (tool as { type?: unknown } | undefined)?.type);
  });
}
