/* eslint-disable */
/**
 * Generated from contracts/schemas/message.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * One chat message as stored by a context manager. OpenAI style (assistant.tool_calls[].id <-> tool.tool_call_id) and Anthropic block style (tool_use.id <-> tool_result.tool_use_id) are both understood.
 */
export type Message = {
  role: Role;
  /**
   * Text, or a list of content blocks. null only on an assistant message that carries tool_calls.
   */
  content: string | ContentBlock[] | null;
  /**
   * Participant name, or the tool's name on a tool message.
   */
  name?: string;
  /**
   * OpenAI-style tool calls; assistant messages only, at least one (providers reject an empty list).
   *
   * @minItems 1
   */
  tool_calls?: ToolCall[];
  /**
   * The id of the call this tool message answers; tool messages only.
   */
  tool_call_id?: string;
  metadata?: MessageMetadata;
};
export type Role = "system" | "developer" | "user" | "assistant" | "tool";
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ImageUrlBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | CompactionBlock;

export interface TextBlock {
  type: "text";
  text: string;
}
/**
 * Anthropic-style image. width/height (pixels) let the token counter price it exactly; without them a documented default is used.
 */
export interface ImageBlock {
  type: "image";
  source?: {
    type: "base64" | "url";
    media_type?: string;
    data?: string;
    url?: string;
  };
  width?: number;
  height?: number;
}
/**
 * OpenAI-style image part.
 */
export interface ImageUrlBlock {
  type: "image_url";
  image_url: {
    url: string;
    detail?: "auto" | "low" | "high";
  };
  width?: number;
  height?: number;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: {
    [k: string]: unknown;
  };
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (TextBlock | ImageBlock)[];
  is_error?: boolean;
}
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
export interface CompactionBlock {
  type: "compaction";
  /**
   * Whose compaction state this is; only that provider's adapter sends it.
   */
  provider: "anthropic" | "openai";
  /**
   * The provider's block or item verbatim (JSON), sent back unchanged.
   */
  data: {
    type: "compaction";
    /**
     * Anthropic: the summary text (null when the compaction failed).
     */
    content?: string | null;
    /**
     * OpenAI: the encrypted compaction state.
     */
    encrypted_content?: string;
    /**
     * OpenAI: the compaction item's id.
     */
    id?: string;
    [k: string]: unknown;
  };
}
export interface ToolCall {
  id: string;
  type: "function";
  function: {
    name: string;
    /**
     * JSON-encoded arguments, as the model produced them.
     */
    arguments: string;
  };
}
export interface MessageMetadata {
  /**
   * Stable message id; assigned by the context manager when missing.
   */
  id?: string;
  /**
   * ISO-8601; assigned when missing.
   */
  timestamp?: string;
  /**
   * Never compacted: kept verbatim in every window.
   */
  critical?: boolean;
  /**
   * Shown in windows of the live session, never persisted.
   */
  ephemeral?: boolean;
  /**
   * Who added it: "hook", "user", a module name …
   */
  source?: string;
  /**
   * The agent run this message belongs to (see clearRun and retention).
   */
  runId?: string;
  summary?: SummaryInfo;
  /**
   * For injected messages: the hook that injected it.
   */
  hook?: string;
  /**
   * For injected messages: the event during which it was injected.
   */
  event?: string;
  /**
   * "turn": a hook's stored system/developer injection made after the session started (a turn note): it belongs to the turn it was injected in — sent in stored order, counted and cut with that turn — instead of being an instruction kept first in every window. Set by the coordinator (processHookResult).
   */
  scope?: "turn";
  [k: string]: unknown;
}
/**
 * Marks a summary (checkpoint) message and names the stored messages it stands for.
 */
export interface SummaryInfo {
  covers: string[];
  strategy?: string;
  summarizer?: string;
  [k: string]: unknown;
}
