/**
 * What an image costs, by the rule of the provider that will see it. The model's family picks
 * the rule (not the block's shape: a provider adapter converts `image` ⇄ `image_url`).
 *
 * | rule              | families        | tokens                                                     |
 * |-------------------|-----------------|------------------------------------------------------------|
 * | openai-tiles      | openai, llama, other | detail "low": base. "high"/"auto": scale to fit 2048×2048, then shortest side to 768 (never up); base + tile × ⌈w/512⌉·⌈h/512⌉. base 85, tile 170 (gpt-4o-mini: 2833, 5667) |
 * | anthropic-pixels  | anthropic       | scale down (aspect kept) until the long edge ≤ 1568 px and w·h ≤ 1.2 MP; ⌈w·h / 750⌉ (at most 1600) |
 * | gemini-tiles      | gemini          | both sides ≤ 384: 258; otherwise 258 per 768×768 tile: ⌈w/768⌉·⌈h/768⌉ |
 *
 * An image without width/height (a URL or base64 we do not decode) costs a documented
 * default: the most the rule can charge where it has a maximum (openai: 8 tiles = 1445;
 * anthropic: 1600), and 4 tiles (1032) for gemini, whose cost grows with size unbounded.
 * The image bytes and URL are never counted as text.
 */
import type { ImageTilePrice, ModelFamily } from "./known-models.js";

export type ImageRule = "openai-tiles" | "anthropic-pixels" | "gemini-tiles";

export interface ImagePricing {
  readonly rule: ImageRule;
  /** openai-tiles only. */
  readonly price: ImageTilePrice;
}

export type ImageDetail = "auto" | "low" | "high";

export const DEFAULT_TILE_PRICE: ImageTilePrice = Object.freeze({ base: 85, tile: 170 });

const OPENAI_MAX_TILES = 8; // a 768 × 2048 image after both scalings
const ANTHROPIC_MAX_LONG_EDGE = 1568;
const ANTHROPIC_MAX_PIXELS = 1_200_000;
const ANTHROPIC_PIXELS_PER_TOKEN = 750;
const ANTHROPIC_MAX_TOKENS = ANTHROPIC_MAX_PIXELS / ANTHROPIC_PIXELS_PER_TOKEN; // 1600
const GEMINI_TILE_TOKENS = 258;
const GEMINI_DEFAULT_TILES = 4;

export function imagePricingFor(family: ModelFamily, price: ImageTilePrice = DEFAULT_TILE_PRICE): ImagePricing {
  const rule: ImageRule = family === "anthropic" ? "anthropic-pixels" : family === "gemini" ? "gemini-tiles" : "openai-tiles";
  return { rule, price };
}

/** A stable key for caches: counts depend on the pricing. */
export function imagePricingKey(pricing: ImagePricing): string {
  return pricing.rule === "openai-tiles" ? `${pricing.rule}:${pricing.price.base}:${pricing.price.tile}` : pricing.rule;
}

/** Tokens of one image. width/height in pixels; anything not a positive number counts as unknown. */
export function imageTokens(pricing: ImagePricing, width?: number, height?: number, detail: ImageDetail = "auto"): number {
  const known = isSize(width) && isSize(height);
  switch (pricing.rule) {
    case "openai-tiles":
      return openAiTileTokens(pricing.price, known ? width : undefined, known ? height : undefined, detail);
    case "anthropic-pixels":
      return known ? anthropicPixelTokens(width, height) : ANTHROPIC_MAX_TOKENS;
    case "gemini-tiles":
      return known ? geminiTileTokens(width, height) : GEMINI_TILE_TOKENS * GEMINI_DEFAULT_TILES;
  }
}

export function openAiTileTokens(price: ImageTilePrice, width: number | undefined, height: number | undefined, detail: ImageDetail): number {
  if (detail === "low") return price.base;
  if (width === undefined || height === undefined) return price.base + price.tile * OPENAI_MAX_TILES;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  return price.base + price.tile * tiles(w, 512) * tiles(h, 512);
}

export function anthropicPixelTokens(width: number, height: number): number {
  const scale = Math.min(1, ANTHROPIC_MAX_LONG_EDGE / Math.max(width, height), Math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)));
  const pixels = width * height * scale * scale;
  return Math.min(ANTHROPIC_MAX_TOKENS, Math.ceil(pixels / ANTHROPIC_PIXELS_PER_TOKEN - 1e-9));
}

export function geminiTileTokens(width: number, height: number): number {
  if (width <= 384 && height <= 384) return GEMINI_TILE_TOKENS;
  return GEMINI_TILE_TOKENS * tiles(width, 768) * tiles(height, 768);
}

/** ⌈size / tile⌉, immune to float noise from the scalings (767.9999999 is one tile). */
function tiles(size: number, tile: number): number {
  return Math.max(1, Math.ceil(size / tile - 1e-9));
}

function isSize(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}
