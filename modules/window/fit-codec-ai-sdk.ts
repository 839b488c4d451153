/**
 * AI SDK `ModelMessage[]`: one item, its stored messages (fromAISDK: a `tool` message with N
 * `tool-result` parts is N tool messages, the parts' order). Writing a `tool` message the window
 * holds in part or truncated: the caller's message with the kept parts — unchanged parts are the
 * caller's part objects, a truncated one is the part with `output` replaced by the truncated text
 * (`error-text` for an error output). A made-up result is a `tool` message with one `tool-result`
 * part (`error-text`: the call was interrupted). Parts the adapter does not read (files, tool
 * approvals, sources, a provider-executed tool's result, newer output types) are counted as their
 * JSON (see `countable`) and sent as given.
 */
import { fromAISDK, toAISDK, type ModelMessage } from "@amplifier-ts/adapters";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { cachedRead, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";
import { windowMarkOf } from "./window-marks.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();

export function aiSdkCodec(): FormatCodec {
  return {
    format: "ai-sdk",
    read(items, index): ReadGroup {
      return { count: 1, messages: cachedRead(cache, items, index, (item) => fromAISDK([countable(item as ModelMessage)])) };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const item = items[group.first] as ModelMessage;
      if (item.role === "tool") {
        // The k-th tool-result part is the group's k-th message; other parts (approval responses) stay.
        const byPart = new Map(sent.map((s) => [s.part, s]));
        const content: unknown[] = [];
        let k = -1;
        for (const original of item.content as unknown as { type: string; output?: { type: string } }[]) {
          if (original.type !== "tool-result") {
            content.push(original);
            continue;
          }
          const s = byPart.get(++k);
          if (!s) continue;
          if (s.same) content.push(original);
          else {
            const error = original.output?.type === "error-text" || original.output?.type === "error-json" || original.output?.type === "execution-denied";
            content.push({ ...original, output: { type: error ? "error-text" : "text", value: textOfContent(s.message.content) } });
          }
        }
        return [{ ...item, content } as ModelMessage];
      }
      const message = sent[0]!.message;
      if (item.role === "assistant") return [assistantItem(item, message)];
      return [{ ...item, content: typeof message.content === "string" ? message.content : userParts(message.content ?? []) } as ModelMessage];
    },
    create(message) {
      if (message.role === "tool") {
        const interrupted = windowMarkOf(message)?.synthetic === "interrupted-tool-call";
        return [
          {
            role: "tool",
            content: [{ type: "tool-result", toolCallId: message.tool_call_id!, toolName: message.name ?? "", output: { type: interrupted ? "error-text" : "text", value: textOfContent(message.content) } }],
          },
        ];
      }
      return toAISDK([{ role: message.role, content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}), ...(message.metadata?.scope ? { metadata: { scope: message.metadata.scope } } : {}) }]);
    },
  };
}

/**
 * An assistant message the window sends changed — its thinking dropped (an older turn, thinking
 * policy `drop-older`), or calls a strategy removed: the caller's message with the parts the sent
 * message still holds (reasoning parts only while it keeps its thinking, tool-call parts whose call
 * it still makes), each the caller's own part object; its text parts are rewritten only when the
 * text itself changed.
 */
function assistantItem(item: ModelMessage, message: Message): ModelMessage {
  if (!Array.isArray(item.content)) return { ...item, content: textOfContent(message.content) } as ModelMessage;
  const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content } as ContentBlock] : (message.content ?? []);
  const thinking = blocks.some((b) => b.type === "thinking" || b.type === "redacted_thinking");
  const calls = new Set((message.tool_calls ?? []).map((c) => c.id));
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : []));
  const parts = item.content as unknown as { type: string; text?: string; toolCallId?: string }[];
  const sameText = parts.filter((p) => p.type === "text").map((p) => p.text ?? "").join("\u0000") === text.join("\u0000");
  const content: unknown[] = [];
  let textWritten = false;
  for (const part of parts) {
    if (part.type === "reasoning") {
      if (thinking) content.push(part);
    } else if (part.type === "tool-call") {
      if (calls.has(part.toolCallId ?? "")) content.push(part);
    } else if (part.type === "text") {
      if (sameText) content.push(part);
      else if (!textWritten) {
        textWritten = true;
        for (const t of text) content.push({ ...part, text: t });
      }
    } else content.push(part);
  }
  if (!sameText && !textWritten) content.unshift(...text.map((t) => ({ type: "text", text: t })));
  return { ...item, content } as ModelMessage;
}

function userParts(blocks: readonly ContentBlock[]) {
  return toAISDK([{ role: "user", content: blocks as ContentBlock[] }])[0]!.content;
}

const USER_PARTS = new Set(["text", "image"]);
const ASSISTANT_PARTS = new Set(["text", "reasoning", "tool-call"]);
const OUTPUTS = new Set(["text", "error-text", "json", "error-json", "content"]);

/**
 * The message as fromAISDK reads it, for counting: parts the adapter does not convert (files,
 * approvals, a provider-executed tool's result, sources, newer output types) become text holding
 * their JSON — counted, conservatively, instead of refused; an image file is an image. The caller's
 * item is what the window sends; this copy is only read.
 */
function countable(message: ModelMessage): ModelMessage {
  const m = message as { role: string; content: unknown };
  if (!Array.isArray(m.content)) return message;
  const parts = m.content as { type: string; output?: { type: string; value?: unknown; reason?: string }; mediaType?: string; data?: unknown }[];
  if (m.role === "tool") {
    if (parts.every((p) => p.type === "tool-result" && readable(p.output))) return message;
    const content = parts
      .filter((p) => p.type === "tool-result")
      .map((p) => (readable(p.output) ? p : { ...p, output: { type: "text", value: p.output?.type === "execution-denied" ? `execution denied${p.output.reason ? `: ${p.output.reason}` : ""}` : json(p.output) } }));
    return { ...message, content } as ModelMessage;
  }
  const known = m.role === "assistant" ? ASSISTANT_PARTS : USER_PARTS;
  if (parts.every((p) => known.has(p.type))) return message;
  const content = parts.map((p) => {
    if (known.has(p.type)) return p;
    if (m.role === "user" && p.type === "file" && typeof p.mediaType === "string" && p.mediaType.startsWith("image/")) return { type: "image", image: p.data, mediaType: p.mediaType };
    return { type: "text", text: json(p) };
  });
  return { ...message, content } as ModelMessage;
}

/** An output fromAISDK reads: text, json and their errors, and `content` of text, media and image URLs. */
function readable(output: { type: string; value?: unknown } | undefined): boolean {
  if (!output || !OUTPUTS.has(output.type)) return false;
  if (output.type !== "content") return true;
  return Array.isArray(output.value) && output.value.every((item: { type?: string }) => CONTENT_ITEMS.has(item?.type ?? ""));
}

const CONTENT_ITEMS = new Set(["text", "media", "image-url"]);

/** JSON of a part, binary data as base64 (what a provider receives). */
function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v instanceof URL ? v.href : v)) ?? "";
}
