/**
 * Anthropic's server-side context management, passed through as the API writes it
 * (`context_management.edits` of POST /v1/messages, beta): each edit is checked here when the
 * config is read, so a bad value is INVALID_MODULE_CONFIG naming it instead of an API 400 at the
 * first call. Shapes from platform.claude.com/docs/en/build-with-claude/compaction and
 * …/context-editing (and @anthropic-ai/sdk's Beta types).
 *
 * | edit                       | what the API does                                        | beta header                     |
 * |----------------------------|----------------------------------------------------------|---------------------------------|
 * | `compact_20260112`          | past `trigger` input tokens (default 150,000; at least 50,000) it summarizes the conversation into a `compaction` block at the start of its answer; later requests drop every block before that block | `compact-2026-01-12`            |
 * | `clear_tool_uses_20250919`  | past `trigger`, clears the oldest tool results (and inputs with `clear_tool_inputs`), keeping `keep`; the client keeps its full history | `context-management-2025-06-27` |
 * | `clear_thinking_20251015`   | clears the thinking of older assistant turns, keeping `keep` (needs extended thinking) | `context-management-2025-06-27` |
 *
 * The API wants each edit once and `clear_thinking_20251015` first when it is combined with others.
 */
import { z } from "zod";

const count = (min: number) => z.number().int().min(min);
const inputTokens = (min: number) => z.strictObject({ type: z.literal("input_tokens"), value: count(min) });

export const compactEditSchema = z.strictObject({
  type: z.literal("compact_20260112"),
  trigger: inputTokens(50_000).optional().meta({ description: "When to compact: { type: \"input_tokens\", value } (default 150000, at least 50000)." }),
  pause_after_compaction: z.boolean().optional().meta({ description: "Stop after the compaction block (stop_reason \"compaction\") instead of answering in the same call." }),
  instructions: z.string().trim().min(1).optional().meta({ description: "Replaces the API's summarization prompt." }),
});

export const clearToolUsesEditSchema = z.strictObject({
  type: z.literal("clear_tool_uses_20250919"),
  trigger: z.union([inputTokens(1), z.strictObject({ type: z.literal("tool_uses"), value: count(1) })]).optional(),
  keep: z.strictObject({ type: z.literal("tool_uses"), value: count(0) }).optional(),
  clear_at_least: inputTokens(1).optional(),
  exclude_tools: z.array(z.string().min(1)).optional(),
  clear_tool_inputs: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
});

export const clearThinkingEditSchema = z.strictObject({
  type: z.literal("clear_thinking_20251015"),
  keep: z.union([z.strictObject({ type: z.literal("thinking_turns"), value: count(1) }), z.strictObject({ type: z.literal("all") }), z.literal("all")]).optional(),
});

export const contextManagementSchema = z
  .strictObject({
    edits: z.array(z.discriminatedUnion("type", [compactEditSchema, clearToolUsesEditSchema, clearThinkingEditSchema])).min(1),
  })
  .superRefine((value, ctx) => {
    const types = value.edits.map((edit) => edit.type);
    types.forEach((type, i) => {
      if (types.indexOf(type) !== i) ctx.addIssue({ code: "custom", path: ["edits", i, "type"], message: `"${type}" is listed twice: each edit once` });
    });
    const thinking = types.indexOf("clear_thinking_20251015");
    if (thinking > 0) ctx.addIssue({ code: "custom", path: ["edits", thinking], message: "clear_thinking_20251015 comes first in edits when combined with others (the API refuses it elsewhere)" });
  })
  .meta({ description: "Server-side context management sent as the request's context_management (beta): edits compact_20260112, clear_tool_uses_20250919, clear_thinking_20251015, as the API writes them. Default: none." });

export type AnthropicContextManagement = z.output<typeof contextManagementSchema>;

const BETA_OF: Record<AnthropicContextManagement["edits"][number]["type"], string> = {
  compact_20260112: "compact-2026-01-12",
  clear_tool_uses_20250919: "context-management-2025-06-27",
  clear_thinking_20251015: "context-management-2025-06-27",
};

/** The beta headers the edits need, each once, in the order of the edits. */
export function betasFor(management: AnthropicContextManagement | undefined): string[] {
  return [...new Set((management?.edits ?? []).map((edit) => BETA_OF[edit.type]))];
}

/** Whether the API compacts this provider's conversations itself (a compact_20260112 edit). */
export function compactsOnServer(management: AnthropicContextManagement | undefined): boolean {
  return (management?.edits ?? []).some((edit) => edit.type === "compact_20260112");
}
