/**
 * AI SDK `ModelMessage[]`: one item, its stored messages (fromAISDK: a `tool` message with N
 * `tool-result` parts is N tool messages, the parts' order). Writing a `tool` message the window
 * holds in part or truncated: the caller's message with the kept parts — unchanged parts are the
 * caller's part objects, a truncated one is the part with `output` replaced by the truncated text
 * (`error-text` for an error output). A made-up result is a `tool` message with one `tool-result`
 * part (`error-text`: the call was interrupted).
 */
import { fromAISDK, toAISDK, type AISDKToolResultPart, type ModelMessage } from "@amplifier-ts/adapters";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { cachedRead, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";
import { windowMarkOf } from "./window-marks.js";

export function aiSdkCodec(): FormatCodec {
  const cache = new WeakMap<object, readonly Message[]>();
  return {
    format: "ai-sdk",
    read(items, index): ReadGroup {
      return { count: 1, messages: cachedRead(cache, items, index, (item) => fromAISDK([item as ModelMessage])) };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const item = items[group.first] as ModelMessage;
      if (item.role === "tool") {
        const parts = sent.map(({ part, message, same }): AISDKToolResultPart => {
          const original = item.content[part]!;
          if (same) return original;
          const error = original.output.type === "error-text" || original.output.type === "error-json";
          return { ...original, output: { type: error ? "error-text" : "text", value: textOfContent(message.content) } };
        });
        return [{ ...item, content: parts }];
      }
      const message = sent[0]!.message;
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

function userParts(blocks: readonly ContentBlock[]) {
  return toAISDK([{ role: "user", content: blocks as ContentBlock[] }])[0]!.content;
}
