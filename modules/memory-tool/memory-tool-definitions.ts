import type { ToolDefinition } from "@amplifier-ts/contracts";

/** Anthropic's client tool: the API knows its commands and schema, the request names only its type. */
export interface AnthropicMemoryToolDefinition {
  type: "memory_20250818";
  name: string;
}

export const ANTHROPIC_MEMORY_TOOL: Readonly<AnthropicMemoryToolDefinition> = Object.freeze({ type: "memory_20250818", name: "memory" });

const PATH = { type: "string", description: "A path under /memories, e.g. /memories/notes.md (a directory: /memories or /memories/projects)." };

/**
 * The same tool for every other provider: an OpenAI-style function whose parameters are the
 * union of the six commands (`oneOf`, one object schema per `command`), so a model that never
 * saw Anthropic's built-in tool reads what each command takes. The answers are the same texts.
 */
export const MEMORY_COMMANDS_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: { command: { type: "string", enum: ["view", "create", "str_replace", "insert", "delete", "rename"], description: "Which command; each takes the fields of its branch below." } },
  required: ["command"],
  oneOf: [
    command("view", "Show a directory (2 levels deep, with sizes) or a file with line numbers.", {
      path: PATH,
      view_range: { type: "array", items: { type: "integer" }, minItems: 2, maxItems: 2, description: "Optional [start_line, end_line] of a file, 1-based; end_line -1 means to the end." },
    }, ["path"]),
    command("create", "Create a file (an existing path is an error).", { path: PATH, file_text: { type: "string", description: "The whole text of the new file." } }, ["path", "file_text"]),
    command("str_replace", "Replace the one occurrence of old_str in a file with new_str.", {
      path: PATH,
      old_str: { type: "string", description: "Text that appears exactly once in the file." },
      new_str: { type: "string", description: "Its replacement (empty: remove it)." },
    }, ["path", "old_str", "new_str"]),
    command("insert", "Insert text after a line of a file (0: at the top).", {
      path: PATH,
      insert_line: { type: "integer", minimum: 0, description: "The line after which the text goes; 0 puts it first." },
      insert_text: { type: "string", description: "The text to insert." },
    }, ["path", "insert_line", "insert_text"]),
    command("delete", "Delete a file, or a directory with everything in it.", { path: PATH }, ["path"]),
    command("rename", "Rename or move a file or directory (the destination must not exist).", { old_path: PATH, new_path: PATH }, ["old_path", "new_path"]),
  ],
});

export const MEMORY_TOOL_DESCRIPTION =
  "Your memory directory /memories persists across conversations: view it before starting a task, record progress, decisions and what you learn in files there, and keep it organised (rename or delete files that are no longer relevant). Files under /memories/pinned/ are shown to you at the start of every request.";

export function memoryFunctionDefinition(name = "memory"): ToolDefinition {
  return {
    type: "function",
    function: { name, description: MEMORY_TOOL_DESCRIPTION, parameters: structuredClone(MEMORY_COMMANDS_SCHEMA) as Record<string, unknown> },
    // Sent to Anthropic instead (modules/adapters toAnthropicTools): the model knows the tool by its type.
    native: { anthropic: { type: ANTHROPIC_MEMORY_TOOL.type, name } },
  };
}

function command(name: string, description: string, properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: "object", description, properties: { command: { type: "string", const: name }, ...properties }, required: ["command", ...required], additionalProperties: false };
}
