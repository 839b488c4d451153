import { describe, expect, it } from "vitest";
import { fromApiTool, toAnthropic, toAnthropicTools, toChatTools, toResponsesTools } from "../../modules/adapters/index.js";
import { memoryFunctionDefinition, MEMORY_COMMANDS_SCHEMA, parseMemoryCommand } from "../../modules/memory-tool/index.js";

/**
 * One definition, two faces: Anthropic gets its own client tool by type (the model knows the
 * commands), every other provider the function whose parameters are the union of the six
 * command objects — and the objects the schema describes are exactly those the tool accepts.
 */
describe("the memory tool's definitions", () => {
  const definition = memoryFunctionDefinition();

  it("is sent to Anthropic as { type: memory_20250818, name: memory } and read back to the same definition's native part", () => {
    expect(toAnthropicTools([definition])).toEqual([{ type: "memory_20250818", name: "memory" }]);
    expect(toAnthropic([{ role: "user", content: "hi" }], { tools: [definition] }).tools).toEqual([{ type: "memory_20250818", name: "memory" }]);
    expect(fromApiTool({ type: "memory_20250818", name: "memory" })).toEqual({ type: "function", function: { name: "memory" }, native: { anthropic: { type: "memory_20250818", name: "memory" } } });
  });

  it("is sent to OpenAI (Chat and Responses) as a function with the command union", () => {
    const [chat] = toChatTools([definition]);
    expect(chat).toMatchObject({ type: "function", function: { name: "memory", parameters: { type: "object", required: ["command"] } } });
    const [responses] = toResponsesTools([definition]);
    expect(responses).toMatchObject({ type: "function", name: "memory", parameters: MEMORY_COMMANDS_SCHEMA });
    const branches = (MEMORY_COMMANDS_SCHEMA.oneOf as Array<{ properties: { command: { const: string } }; required: string[] }>).map((b) => [b.properties.command.const, b.required]);
    expect(branches).toEqual([
      ["view", ["command", "path"]],
      ["create", ["command", "path", "file_text"]],
      ["str_replace", ["command", "path", "old_str", "new_str"]],
      ["insert", ["command", "path", "insert_line", "insert_text"]],
      ["delete", ["command", "path"]],
      ["rename", ["command", "old_path", "new_path"]],
    ]);
  });

  it("describes exactly what the tool accepts: each branch's required fields make a command, one fewer does not", () => {
    const sample: Record<string, unknown> = { path: "/memories/a.md", file_text: "x", old_str: "x", new_str: "y", insert_line: 0, insert_text: "x", old_path: "/memories/a.md", new_path: "/memories/b.md" };
    for (const branch of MEMORY_COMMANDS_SCHEMA.oneOf as Array<{ properties: { command: { const: string } }; required: string[] }>) {
      const command = Object.fromEntries(branch.required.map((field) => [field, field === "command" ? branch.properties.command.const : sample[field]]));
      expect(parseMemoryCommand(command).ok, JSON.stringify(command)).toBe(true);
      for (const field of branch.required.filter((f) => f !== "command" && f !== "new_str")) {
        const { [field]: _dropped, ...missing } = command;
        expect(parseMemoryCommand(missing).ok, `${branch.properties.command.const} without ${field}`).toBe(false);
      }
    }
  });

  it("refuses a native definition whose name is not the function's", () => {
    expect(() => toAnthropic([{ role: "user", content: "hi" }], { tools: [{ ...definition, native: { anthropic: { type: "memory_20250818", name: "other" } } }] })).toThrow(expect.objectContaining({ code: "ADAPTER/INVALID_INPUT" }));
  });
});
