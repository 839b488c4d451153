import type { ToolDefinition } from "./provider.js";

export interface ToolResult {
  output: string;
  isError?: boolean;
}

/** A tool the orchestrator can call; mounted at the `tools` point under its name. */
export interface Tool {
  definition: ToolDefinition;
  execute(input: Record<string, unknown>): Promise<ToolResult> | ToolResult;
}
