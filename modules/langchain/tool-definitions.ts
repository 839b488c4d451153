/**
 * The tools of a model call as the definitions the provider receives (OpenAI function shape), so
 * they count against the budget: LangChain tools (zod or JSON schema) through @langchain/core's
 * own converter — the one ChatOpenAI's bindTools uses — and provider tool dicts as they are.
 */
import type { ToolDefinition } from "@amplifier-ts/contracts";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";

export function toolDefinitionsOf(tools: readonly unknown[]): ToolDefinition[] {
  return tools.flatMap((tool) => {
    const converted = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]) as { type?: unknown; function?: { name?: unknown } };
    // Server-side tools (web search, file search …) are no function definitions: the provider prices them otherwise.
    return converted.type === "function" && typeof converted.function?.name === "string" ? [converted as unknown as ToolDefinition] : [];
  });
}

/** A key that changes when the tool set sent changes (names and schemas), to rebuild a fitter then. */
export function toolSetKey(definitions: readonly ToolDefinition[]): string {
  return JSON.stringify(definitions);
}
