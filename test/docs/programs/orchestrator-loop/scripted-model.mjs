// The README loop's model, scripted: a tool call first, then — once the tool's result is in the
// request — an answer quoting it. A Provider as the contract has it: getInfo() + complete().
export function mount() {
  return {
    getInfo: () => ({ id: "scripted", defaults: { model: "gpt-4o", context_window: 128_000, max_output_tokens: 4_096 } }),
    complete: async ({ messages }) => {
      const result = messages.findLast((m) => m.role === "tool");
      if (result === undefined) {
        return {
          message: {
            role: "assistant",
            content: "Let me read package.json.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"package.json"}' } }],
          },
        };
      }
      return { message: { role: "assistant", content: `package.json says ${result.content}: there is no test script.` } };
    },
  };
}
