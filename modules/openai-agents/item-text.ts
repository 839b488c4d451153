import type { AgentInputItem } from "@openai/agents-core";
import type { ContentBlock } from "@amplifier-ts/contracts";
import type { ItemRecord } from "./agent-items.js";

/**
 * What of an item the model reads, as our content blocks, for counting and fitting only (the
 * items themselves are what the session stores and returns). Text is counted as text; an image
 * given by URL as an image; anything else the API carries (files, audio, hosted tool payloads,
 * encrypted reasoning) as the JSON text it travels as, so it is counted rather than ignored.
 */
export function contentBlocksOf(item: AgentInputItem): ContentBlock[] {
  const record = item as ItemRecord;
  if (record.type === "reasoning") return reasoningBlocks(record);
  if (record.type === undefined || record.type === "message") {
    const content = record.content;
    if (typeof content === "string") return [{ type: "text", text: content }];
    if (Array.isArray(content)) return content.flatMap((part) => partBlocks(part));
    return [];
  }
  return [{ type: "text", text: JSON.stringify(withoutBookkeeping(record)) }];
}

/** The text of a call's arguments as the API sends it. */
export function argumentsOf(item: AgentInputItem): string {
  const record = item as ItemRecord;
  if (typeof record.arguments === "string") return record.arguments;
  return JSON.stringify(withoutBookkeeping(record, ["name", "callId", "call_id"]));
}

/** The text of a result's output (`output` string, text parts joined, anything else as JSON). */
export function outputTextOf(item: AgentInputItem): string {
  const output = (item as ItemRecord).output;
  if (typeof output === "string") return output;
  const parts = Array.isArray(output) ? output : output === undefined ? [] : [output];
  return parts.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : JSON.stringify(part))).join("\n");
}

export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : "")).join("\n");
}

function partBlocks(part: unknown): ContentBlock[] {
  if (!isRecord(part)) return [];
  switch (part.type) {
    case "input_text":
    case "output_text":
      return typeof part.text === "string" ? [{ type: "text", text: part.text }] : [];
    case "refusal":
      return typeof part.refusal === "string" ? [{ type: "text", text: part.refusal }] : [];
    case "audio":
      return typeof part.transcript === "string" ? [{ type: "text", text: part.transcript }] : [];
    case "input_image": {
      const image = part.image ?? part.imageUrl ?? part.image_url;
      const url = typeof image === "string" ? image : isRecord(image) && typeof image.url === "string" ? image.url : undefined;
      if (url !== undefined && (url.startsWith("data:") || url.startsWith("http"))) return [{ type: "image_url", image_url: { url, ...(part.detail === "low" || part.detail === "high" || part.detail === "auto" ? { detail: part.detail } : {}) } }];
      return [{ type: "text", text: JSON.stringify(part) }];
    }
    default:
      return [{ type: "text", text: JSON.stringify(part) }];
  }
}

function reasoningBlocks(record: ItemRecord): ContentBlock[] {
  const texts = [record.content, record.rawContent].flatMap((list) => (Array.isArray(list) ? list : [])).flatMap((part) => (isRecord(part) && typeof part.text === "string" ? [part.text] : []));
  const blocks: ContentBlock[] = texts.map((thinking) => ({ type: "thinking", thinking }));
  const providerData = record.providerData;
  const encrypted = record.encrypted_content ?? (isRecord(providerData) ? providerData.encryptedContent ?? providerData.encrypted_content : undefined);
  if (typeof encrypted === "string" && encrypted !== "") blocks.push({ type: "text", text: encrypted });
  return blocks;
}

const BOOKKEEPING = ["type", "id", "status", "providerData"];

function withoutBookkeeping(record: ItemRecord, more: readonly string[] = []): Record<string, unknown> {
  const drop = new Set([...BOOKKEEPING, ...more]);
  return Object.fromEntries(Object.entries(record).filter(([key]) => !drop.has(key)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
