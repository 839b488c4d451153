import type { CoordinatorContract, ToolCallPart, ToolResult } from "@amplifier-ts/contracts";
import { callArguments } from "@amplifier-ts/contracts";

/**
 * One tool call of an orchestrator loop, with the standard events (OpenAI `tool_calls` and
 * Anthropic `tool_use` alike — a ToolCallPart from forEachContentPart):
 *
 * | step | event | the call's result |
 * |---|---|---|
 * | arguments that are not a JSON object | — | an error result |
 * | before | `tool:pre` { tool, callId, input } — a hook may deny, or modify the input | denied: an error result with the reason |
 * | no tool of that name | — | an error result |
 * | the tool throws | `tool:error` { …, error } | an error result with its message |
 * | after (every case that reached tool:pre) | `tool:post` { …, result, durationMs } | the tool's own result |
 *
 * Never throws for the tool's sake: the model is told what went wrong (`isError: true`), so the
 * loop can add the result and go on. The result's `output` is what to send back as the tool message.
 */
export async function runTool(coordinator: CoordinatorContract, call: ToolCallPart): Promise<ToolResult> {
  const { name, id: callId } = call;
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(callArguments(call));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new TypeError("not an object");
    input = parsed as Record<string, unknown>;
  } catch {
    return { output: `error: the arguments of ${name} are not a JSON object`, isError: true };
  }

  const pre = await coordinator.hooks.emit("tool:pre", { tool: name, callId, input });
  const decision = await coordinator.processHookResult(pre, "tool:pre", pre.decidedBy ?? "runTool");
  if (decision.action === "deny") return { output: `error: ${name} was denied: ${decision.reason ?? "no reason given"}`, isError: true };
  input = pre.data.input;

  const tool = coordinator.get("tools", name);
  const started = performance.now();
  let result: ToolResult;
  if (tool === undefined) {
    result = { output: `error: there is no tool named ${name}`, isError: true };
  } else {
    try {
      result = await tool.execute(input);
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      await coordinator.hooks.emit("tool:error", { tool: name, callId, input, error });
      result = { output: `error: ${error.message}`, isError: true };
    }
  }
  await coordinator.hooks.emit("tool:post", { tool: name, callId, input, result, durationMs: performance.now() - started });
  return result;
}
