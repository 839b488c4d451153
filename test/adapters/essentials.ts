/**
 * What a round trip must keep, read from stored messages: text (trimmed, blank dropped), tool
 * calls (id, name, arguments as data), tool results (id, text, images) and user-side images (as
 * URLs). Roles, message boundaries and thinking are compared by the example tests, where each
 * adapter's documented mapping is stated.
 */
import { callArguments, forEachContentPart, isInstruction, type Message } from "@amplifier-ts/contracts";

export interface Essentials {
  texts: string[];
  calls: string[];
  results: string[];
  images: string[];
}

export function essentials(messages: readonly Message[], options: { joinInstructions?: boolean; dropText?: string } = {}): Essentials {
  const out: Essentials = { texts: [], calls: [], results: [], images: [] };
  let list = messages;
  if (options.joinInstructions) {
    const instructions = messages.filter(isInstruction);
    const joined = instructions.map((m) => textOf(m)).join("\n\n");
    list = [...(joined ? [{ role: "system", content: joined } as Message] : []), ...messages.filter((m) => !isInstruction(m))];
  }
  for (const message of list) {
    if (message.role === "tool") {
      out.results.push(`${message.tool_call_id}:${resultText(message.content)}`);
      continue;
    }
    forEachContentPart(message, {
      text(text) {
        const t = text.trim();
        if (t !== "" && t !== options.dropText) out.texts.push(t);
      },
      toolCall(call) {
        out.calls.push(`${call.id}:${call.name}:${JSON.stringify(JSON.parse(callArguments(call)))}`);
      },
      toolResult(block) {
        out.results.push(`${block.tool_use_id}:${resultText(block.content ?? "")}`);
      },
      image(block) {
        out.images.push(block.type === "image_url" ? block.image_url.url : block.source?.type === "url" ? block.source.url! : `data:${block.source?.media_type};base64,${block.source?.data}`);
      },
    });
  }
  out.calls.sort();
  return out;
}

function textOf(message: Message): string {
  return typeof message.content === "string" ? message.content : (message.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
}

function resultText(content: Message["content"] | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => (b.type === "text" ? b.text : b.type === "image" ? `[image ${b.source?.data ?? b.source?.url}]` : "")).join("");
}
