/**
 * Conversions of single parts every adapter shares: images (stored `image` / `image_url` blocks
 * ↔ URLs, data URLs and base64 sources) and tool-call arguments (OpenAI's JSON text ↔ Anthropic's
 * and the AI SDK's objects).
 */
import type { ImageBlock, ImageUrlBlock } from "@amplifier-ts/contracts";
import { adapterError, type AdapterName } from "./adapter-errors.js";

export interface Where {
  adapter: AdapterName;
  direction: "to" | "from";
  index: number;
  path: string;
}

/** An image as a URL: an `image_url` block's own, a base64 source as a data URL, a url source as is. */
export function imageUrlOf(block: ImageBlock | ImageUrlBlock, where: Where): { url: string; detail?: "auto" | "low" | "high" } {
  if (block.type === "image_url") return block.image_url.detail ? { url: block.image_url.url, detail: block.image_url.detail } : { url: block.image_url.url };
  const source = block.source;
  if (source?.type === "url" && source.url) return { url: source.url };
  if (source?.type === "base64" && source.data) return { url: `data:${source.media_type ?? "image/png"};base64,${source.data}` };
  throw adapterError("UNSUPPORTED_CONTENT", {
    ...where,
    rule: "an image is sent with its data or URL; this one has neither (a block that only prices an image cannot be sent)",
    expected: 'source { type: "base64", data } or { type: "url", url }',
    given: block.source,
  });
}

/** A URL as Anthropic's image source: a data URL becomes base64, any other URL stays a URL. */
export function imageSourceOf(url: string): { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } {
  const data = parseDataUrl(url);
  return data ? { type: "base64", media_type: data.mediaType, data: data.data } : { type: "url", url };
}

/** A stored image block for a URL (an API's image part read back). */
export function imageBlockOf(url: string, detail?: string): ImageUrlBlock {
  return detail === "auto" || detail === "low" || detail === "high" ? { type: "image_url", image_url: { url, detail } } : { type: "image_url", image_url: { url } };
}

export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

/** A call's JSON arguments as the object Anthropic and the AI SDK take. */
export function parseArguments(text: string, where: Where): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch (cause) {
    throw adapterError("INVALID_INPUT", { ...where, rule: "tool call arguments are JSON text", expected: "a JSON object", given: text });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw adapterError("INVALID_INPUT", { ...where, rule: "tool call arguments are a JSON object", expected: "a JSON object", given: text });
  }
  return value as Record<string, unknown>;
}

/** Whether a text part would be refused as empty (Anthropic: text blocks need non-whitespace text). */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}
