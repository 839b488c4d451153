/**
 * The `memory_20250818` command objects, checked field by field. A malformed command is answered
 * with a sentence the model can act on (which field, what it must be) — the answer is an
 * `isError` result, never a thrown error.
 */
export type MemoryCommand =
  | { command: "view"; path: string; view_range?: [number, number] }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

export const MEMORY_COMMANDS = ["view", "create", "str_replace", "insert", "delete", "rename"] as const;

export type ParsedCommand = { ok: true; command: MemoryCommand } | { ok: false; error: string };

export function parseMemoryCommand(input: unknown): ParsedCommand {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return fail("Error: the memory tool takes an object with a `command` field");
  const fields = input as Record<string, unknown>;
  const command = fields.command;
  if (typeof command !== "string" || !(MEMORY_COMMANDS as readonly string[]).includes(command)) {
    return fail(`Error: Unrecognized command ${JSON.stringify(command)}. The allowed commands for the memory tool are: ${MEMORY_COMMANDS.join(", ")}`);
  }
  const text = (name: string): string | ParsedCommand => {
    const value = fields[name];
    if (value === undefined || value === null) return fail(`Error: Parameter \`${name}\` is required for command: ${command}`);
    if (typeof value !== "string") return fail(`Error: Parameter \`${name}\` must be a string for command: ${command}`);
    return value;
  };
  switch (command) {
    case "view": {
      const path = text("path");
      if (typeof path !== "string") return path;
      const range = fields.view_range;
      if (range === undefined || range === null) return ok({ command, path });
      if (!Array.isArray(range) || range.length !== 2 || !range.every((n) => Number.isSafeInteger(n))) {
        return fail(`Error: Invalid \`view_range\` parameter: ${JSON.stringify(range)}. It should be a list of two integers [start_line, end_line] (end_line -1: to the end of the file)`);
      }
      return ok({ command, path, view_range: [range[0] as number, range[1] as number] });
    }
    case "create": {
      const path = text("path");
      if (typeof path !== "string") return path;
      const fileText = text("file_text");
      if (typeof fileText !== "string") return fileText;
      return ok({ command, path, file_text: fileText });
    }
    case "str_replace": {
      const path = text("path");
      if (typeof path !== "string") return path;
      const oldStr = text("old_str");
      if (typeof oldStr !== "string") return oldStr;
      if (oldStr === "") return fail("Error: Parameter `old_str` must not be empty for command: str_replace");
      // new_str may be left out: the old text is then removed (as the text editor tool does).
      const newStr = fields.new_str === undefined || fields.new_str === null ? "" : text("new_str");
      if (typeof newStr !== "string") return newStr;
      return ok({ command, path, old_str: oldStr, new_str: newStr });
    }
    case "insert": {
      const path = text("path");
      if (typeof path !== "string") return path;
      const line = fields.insert_line;
      if (!Number.isSafeInteger(line)) return fail(`Error: Parameter \`insert_line\` must be an integer for command: insert (given ${JSON.stringify(line) ?? "nothing"})`);
      const insertText = text("insert_text");
      if (typeof insertText !== "string") return insertText;
      return ok({ command, path, insert_line: line as number, insert_text: insertText });
    }
    case "delete": {
      const path = text("path");
      if (typeof path !== "string") return path;
      return ok({ command, path });
    }
    default: {
      const oldPath = text("old_path");
      if (typeof oldPath !== "string") return oldPath;
      const newPath = text("new_path");
      if (typeof newPath !== "string") return newPath;
      return ok({ command: "rename", old_path: oldPath, new_path: newPath });
    }
  }
}

function ok(command: MemoryCommand): ParsedCommand {
  return { ok: true, command };
}

function fail(error: string): ParsedCommand {
  return { ok: false, error };
}
