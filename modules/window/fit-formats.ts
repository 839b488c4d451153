/**
 * The shapes fitWindow reads, and how it tells them apart (duck typing; no framework is imported).
 *
 * | format             | input                                               | recognised by (any one item decides)                         |
 * |--------------------|-----------------------------------------------------|--------------------------------------------------------------|
 * | `langchain`        | `BaseMessage[]` (@langchain/core classes; plain message-likes beside them) | `_getType()` / `getType()`, or `lc_namespace` with a `type`; `tool_calls[{ id, name, args }]` |
 * | `openai-responses` | input items; or `{ instructions?, input }`          | a top-level `type` (`message`, `function_call`, …), `input_text` / `output_text` parts |
 * | `ai-sdk`           | `ModelMessage[]`                                    | `tool-call` / `tool-result` / `reasoning` / `file` parts, `image` parts with `image`, a `tool` message of parts, `providerOptions` |
 * | `anthropic`        | `{ system?, messages }`; or its `messages`          | the envelope; `tool_use` / `tool_result` / `thinking` blocks without OpenAI fields |
 * | `openai-chat`      | `ChatCompletionMessageParam[]`                      | `tool_calls[].function`, `tool` messages with `tool_call_id`  |
 * | `amplifier`        | our `Message[]`                                     | `metadata`; OpenAI calls and Anthropic blocks in one array    |
 *
 * Each item is compatible with a set of formats; the array's format is in every item's set. Plain
 * text messages (`{ role: "user", content: "…" }`) fit several; when more than one remains, the
 * first of CHOICE_ORDER wins — for such arrays every choice returns the same window (kept items
 * are the caller's objects; a made-up placeholder is `{ role: "user", content }` in all of them).
 * An item that fits none, or none of the formats of the items before it: WINDOW_FIT/UNKNOWN_FORMAT
 * or WINDOW_FIT/MIXED_FORMATS, naming its index and what was expected.
 */
import { langChainTypeOf } from "@amplifier-ts/adapters";
import { fitError } from "./fit-errors.js";

export type WindowFormat = "amplifier" | "openai-chat" | "openai-responses" | "anthropic" | "ai-sdk" | "langchain";

export const WINDOW_FORMATS: readonly WindowFormat[] = ["amplifier", "openai-chat", "openai-responses", "anthropic", "ai-sdk", "langchain"];

const BIT: Record<WindowFormat, number> = { amplifier: 1, "openai-chat": 2, "openai-responses": 4, anthropic: 8, "ai-sdk": 16, langchain: 32 };
const ALL = 63;
/** Ambiguous arrays: the first format of this order that every item fits. */
const CHOICE_ORDER: readonly WindowFormat[] = ["openai-chat", "anthropic", "ai-sdk", "openai-responses", "langchain", "amplifier"];

const A = BIT.amplifier;
const C = BIT["openai-chat"];
const R = BIT["openai-responses"];
const N = BIT.anthropic;
const S = BIT["ai-sdk"];
const L = BIT.langchain;

const RESPONSES_ITEM_TYPES = new Set([
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "item_reference",
  "custom_tool_call",
  "custom_tool_call_output",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "mcp_call",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "compaction",
]);

/** The formats one item fits (a bit set); 0 when it is no message of any. */
export function formatsOfItem(item: unknown): number {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return 0;
  if (langChainTypeOf(item) !== undefined) return L;
  const m = item as Record<string, unknown>;
  if (typeof m.type === "string") return RESPONSES_ITEM_TYPES.has(m.type) && (m.type !== "message" || typeof m.role === "string") ? R : 0;
  const role = m.role;
  if (typeof role !== "string") return 0;
  let mask: number;
  switch (role) {
    case "system":
      mask = A | C | R | S | L;
      break;
    case "developer":
      mask = A | C | R | L;
      break;
    case "user":
      mask = A | C | R | N | S | L;
      break;
    case "assistant":
      mask = A | C | R | N | S | L;
      break;
    case "tool":
      mask = A | C | S | L;
      break;
    default:
      return 0;
  }
  if ("metadata" in m && m.metadata !== undefined) mask &= A;
  if ("providerOptions" in m && m.providerOptions !== undefined) mask &= S;
  if (Array.isArray(m.tool_calls)) {
    const openAI = m.tool_calls.every((c) => typeof (c as { function?: unknown })?.function === "object");
    // LangChain's message-like objects carry { id, name, args } calls (toLangChain writes them so).
    const langChain = m.tool_calls.every((c) => typeof (c as { args?: unknown })?.args === "object" && typeof (c as { name?: unknown }).name === "string");
    mask &= role !== "assistant" ? 0 : openAI ? A | C : langChain ? L : 0;
  }
  if (role === "tool") mask &= typeof m.tool_call_id === "string" ? A | C | L : Array.isArray(m.content) ? S : 0;
  const content = m.content;
  if (typeof content === "string") return mask & (role === "tool" ? A | C | L : ALL);
  if (content === null) return mask & (role === "assistant" ? A | C : 0);
  if (!Array.isArray(content)) return 0;
  for (const part of content) {
    mask &= partFormats(part, role);
    if (mask === 0) return 0;
  }
  return mask;
}

/** Formats a content part fits, for a message of `role`. */
function partFormats(part: unknown, role: string): number {
  if (typeof part !== "object" || part === null) return 0;
  const p = part as Record<string, unknown>;
  const extra = "providerOptions" in p ? S : ALL;
  switch (p.type) {
    case "text":
      return extra & (typeof p.text === "string" ? (role === "tool" ? A | C | L : A | C | N | S | L) : 0);
    case "image_url":
      return extra & (role === "user" || role === "tool" ? A | C | L : 0);
    case "image":
      if ("image" in p) return S;
      return extra & (role === "user" || role === "tool" ? A | N : 0);
    case "file":
      return "data" in p || "mediaType" in p ? S : C;
    case "input_text":
    case "input_image":
    case "input_file":
    case "output_text":
      return R;
    case "refusal":
      return role === "assistant" ? C | R : 0;
    case "tool_use":
    case "thinking":
    case "redacted_thinking":
      return role === "assistant" ? A | N : 0;
    case "tool_result":
      return role === "user" ? A | N : 0;
    case "compaction":
      // Ours carries the provider's block under `data`; Anthropic's own block carries its summary as `content`.
      return role !== "assistant" ? 0 : "provider" in p && "data" in p ? A : "content" in p ? N : 0;
    case "tool-call":
    case "reasoning":
      return role === "assistant" ? S : 0;
    case "tool-result":
      // In an assistant message: a provider-executed tool's result.
      return role === "tool" || role === "assistant" ? S : 0;
    case "source":
      return role === "assistant" ? S : 0;
    case "tool-approval-request":
      return role === "assistant" ? S : 0;
    case "tool-approval-response":
      return role === "tool" ? S : 0;
    default:
      return 0;
  }
}

/** Detects the format of `items` from `from` on, given the mask of the items before (ALL when none). */
export function narrowFormats(items: readonly unknown[], from: number, mask: number, forced: WindowFormat | undefined): number {
  for (let i = from; i < items.length; i++) {
    const item = items[i];
    const own = formatsOfItem(item);
    if (own === 0) {
      throw fitError("UNKNOWN_FORMAT", `messages[${i}] is not a message of any format fitWindow reads (${describe(item)})`, {
        index: i,
        path: `messages[${i}]`,
        expected: forced ? `a ${forced} message` : `a message of one of: ${WINDOW_FORMATS.join(", ")}`,
        given: describe(item),
      });
    }
    const next = mask & own;
    if (next === 0) {
      const before = namesOf(mask);
      throw fitError(
        forced ? "UNKNOWN_FORMAT" : "MIXED_FORMATS",
        forced
          ? `messages[${i}] is not a ${forced} message; it reads as ${namesOf(own).join(" or ")}`
          : `messages[${i}] is a ${namesOf(own).join(" / ")} message, but the messages before it are ${before.join(" / ")}`,
        { index: i, path: `messages[${i}]`, expected: forced ? `a ${forced} message` : `a message of ${before.join(" or ")}`, given: namesOf(own).join(" | ") },
      );
    }
    mask = next;
  }
  return mask;
}

export function maskOf(format: WindowFormat | undefined): number {
  return format ? BIT[format] : ALL;
}

/** The format a mask stands for (CHOICE_ORDER when several remain). */
export function chooseFormat(mask: number): WindowFormat {
  return CHOICE_ORDER.find((f) => (mask & BIT[f]) !== 0) ?? "amplifier";
}

function namesOf(mask: number): WindowFormat[] {
  return WINDOW_FORMATS.filter((f) => (mask & BIT[f]) !== 0);
}

function describe(item: unknown): string {
  if (item === null) return "null";
  if (Array.isArray(item)) return "an array";
  if (typeof item !== "object") return typeof item;
  const m = item as Record<string, unknown>;
  const keys = Object.keys(m).slice(0, 6).join(", ");
  return `an object with ${keys || "no keys"}${typeof m.role === "string" ? ` (role ${m.role})` : ""}${typeof m.type === "string" ? ` (type ${m.type})` : ""}`;
}
