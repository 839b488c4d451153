/**
 * The fitted window (stored messages) → the provider prompt to send, made of the prompt's OWN
 * objects wherever the window kept a message as it was: a kept message is the very prompt message
 * (its providerOptions, cache markers and signatures untouched), so consecutive requests share
 * their prefix byte for byte.
 *
 * | window message                          | prompt message                                                  |
 * |-----------------------------------------|-----------------------------------------------------------------|
 * | kept as it was                          | the prompt's message object                                     |
 * | tool results of one tool message        | that tool message; the same object when every result is kept as it was |
 * | truncated (a capped result or prompt)   | a copy of the prompt message with the cut text in place of its text parts (files, calls, options kept) |
 * | made by the window (interrupted result) | a `tool-result` part `{ type: "text" }` for its call, in the tool message after the call |
 * | made by the window (omitted history)    | a `user` message with its text                                  |
 */
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import type { MirroredPrompt, Origin } from "./prompt-mirror.js";
import type { ProviderMessage, ProviderPart, ProviderToolResultPart } from "./sdk-types.js";

type Loose = Record<string, unknown>;

export function promptFromWindow(window: readonly Message[], mirrored: MirroredPrompt, prompt: readonly ProviderMessage[]): ProviderMessage[] {
  const out: ProviderMessage[] = [];
  let group: ToolGroup | undefined;
  const flush = () => {
    if (group) out.push(toolMessage(group, prompt));
    group = undefined;
  };
  for (const message of window) {
    const id = message.metadata?.id;
    const origin = typeof id === "string" ? mirrored.origins.get(id) : undefined;
    if (message.role === "tool") {
      const index = origin?.index ?? group?.index ?? -1;
      if (group === undefined || (origin !== undefined && group.index !== -1 && group.index !== index)) {
        flush();
        group = { index, results: new Map(), made: [] };
      }
      if (group.index === -1) group.index = index;
      if (origin) group.results.set(origin.part, unchanged(message, origin) ? (prompt[origin.index]!.content[origin.part] as ProviderToolResultPart) : cutResult(message, origin, prompt));
      else group.made.push(madeResult(message, mirrored));
      continue;
    }
    flush();
    if (!origin) out.push({ role: "user", content: [{ type: "text", text: textOf(message.content) }] });
    else out.push(unchanged(message, origin) ? prompt[origin.index]! : cutMessage(message, origin, prompt[origin.index]!));
  }
  flush();
  return out;
}

interface ToolGroup {
  /** The prompt tool message the results come from; -1 while only made-up results are in it. */
  index: number;
  /** Part index → the part to send. */
  results: Map<number, ProviderToolResultPart>;
  made: ProviderToolResultPart[];
}

function toolMessage(group: ToolGroup, prompt: readonly ProviderMessage[]): ProviderMessage {
  if (group.index === -1) return { role: "tool", content: group.made };
  const original = prompt[group.index] as Extract<ProviderMessage, { role: "tool" }>;
  let same = group.made.length === 0;
  const content: (typeof original.content)[number][] = [];
  original.content.forEach((part, k) => {
    if (part.type !== "tool-result") return void content.push(part);
    const sent = group.results.get(k);
    if (sent !== part) same = false;
    if (sent) content.push(sent);
  });
  return same ? original : { ...original, content: [...content, ...group.made] };
}

function unchanged(message: Message, origin: Origin): boolean {
  return message === origin.message || (message.content === origin.message.content && message.tool_calls === origin.message.tool_calls);
}

/** A tool result the window cut: the prompt's part with the cut text as its output. */
function cutResult(message: Message, origin: Origin, prompt: readonly ProviderMessage[]): ProviderToolResultPart {
  const part = prompt[origin.index]!.content[origin.part] as ProviderToolResultPart;
  const output = part.output as Loose;
  const error = output.type === "error-text" || output.type === "error-json";
  if (typeof message.content === "string" || output.type !== "content") {
    return { ...part, output: { type: error ? "error-text" : "text", value: ownText(message, origin) } };
  }
  const items = output.value as Loose[];
  const value = items.map((item, j) => {
    const block = (message.content as ContentBlock[])[j];
    return item.type === "text" && block?.type === "text" ? { ...item, text: block.text } : item;
  });
  return { ...part, output: { ...output, value } as ProviderToolResultPart["output"] };
}

/** A user, assistant or system message the window cut: its text parts give way to the cut text. */
function cutMessage(message: Message, origin: Origin, original: ProviderMessage): ProviderMessage {
  if (original.role === "system") return { ...original, content: textOf(message.content) };
  // A ModelMessage (the prepareStep path) may hold its content as one string.
  if (typeof original.content === "string") return { ...original, content: textOf(message.content) } as unknown as ProviderMessage;
  const parts = original.content as ProviderPart[];
  if (typeof message.content === "string") {
    // The engine cut the message's whole text into one string: it takes the first text part's place.
    const first = parts.findIndex((p) => p.type === "text");
    const content = parts.flatMap((p, k): ProviderPart[] => (p.type !== "text" ? [p] : k === first ? [{ ...p, text: message.content as string }] : []));
    return { ...original, content: first === -1 ? [{ type: "text", text: message.content }, ...content] : content } as ProviderMessage;
  }
  const replaced = new Map<number, string>();
  (message.content ?? []).forEach((block, j) => {
    const before = (origin.message.content as ContentBlock[] | null)?.[j];
    if (block !== before && (block.type === "text" || block.type === "thinking")) replaced.set(origin.blockParts[j]!, block.type === "text" ? block.text : block.thinking);
  });
  const content = parts.map((p, k) => (replaced.has(k) && (p.type === "text" || p.type === "reasoning") ? { ...p, text: replaced.get(k)! } : p));
  return { ...original, content } as ProviderMessage;
}

/** A result the window made for a call whose result is missing (an interrupted call). */
function madeResult(message: Message, mirrored: MirroredPrompt): ProviderToolResultPart {
  const id = message.tool_call_id ?? "";
  return { type: "tool-result", toolCallId: id, toolName: message.name ?? mirrored.callNames.get(id) ?? "tool", output: { type: "text", value: textOf(message.content) } };
}

/** The result's own text (without the approval responses counted beside it). */
function ownText(message: Message, origin: Origin): string {
  if (typeof message.content === "string") return message.content;
  const own = origin.ownBlocks > 0 ? message.content?.slice(0, origin.ownBlocks) : message.content?.slice(0, 1);
  return textOf(own ?? null);
}

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
}
