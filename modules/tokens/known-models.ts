/**
 * The built-in model table. Figures are the providers' published limits (context window and
 * maximum output tokens per response). For Llama the maximum output depends on the host; 8192
 * is a common default and can be overridden with registerModel().
 *
 * `encoding` is the tiktoken vocabulary used to count: exact for OpenAI models, an
 * approximation for every other family (see FAMILY_SAFETY_FACTORS and contracts/TOKENS.md).
 * Names are matched by prefix at a boundary (`-`, `:`, `@`), so dated and suffixed variants
 * resolve to their entry: `gpt-4o-2024-08-06` → `gpt-4o`, `claude-sonnet-4-20250514` →
 * `claude-sonnet-4`. Aliases cover other spellings (Ollama's `llama3.1`, Bedrock's `llama3-1`).
 */
import type { TiktokenEncodingName } from "./tiktoken-tokenizer.js";

export type ModelFamily = "openai" | "anthropic" | "gemini" | "llama" | "other";

/**
 * Default safety factor per family: counts are multiplied by it (then rounded up).
 * 1.0 where the encoding is the model's own; above 1 where o200k/cl100k only approximates the
 * model's tokenizer, sized to the usual gap on English and code (Claude's tokenizer yields
 * roughly 10–25 % more tokens than o200k; Gemini's SentencePiece vocabulary and Llama 4's are
 * close to o200k; Llama 3's vocabulary extends cl100k, so cl100k counts are an upper bound).
 */
export const FAMILY_SAFETY_FACTORS: Readonly<Record<ModelFamily, number>> = {
  openai: 1.0,
  anthropic: 1.2,
  gemini: 1.1,
  llama: 1.05,
  other: 1.2,
};

/** OpenAI's image tile prices: `base + tile × tiles` (see image-tokens.ts). */
export interface ImageTilePrice {
  base: number;
  tile: number;
}

/**
 * List prices in USD per million tokens: `input` (uncached), `cachedInput` (a prompt-cache read),
 * `output`, and `cacheWrite` where the provider bills writes (Anthropic's 5-minute cache: 1.25 ×
 * input). `asOf` is the date they were read from the provider's pricing page. Used by
 * `amplifier-ts replay --cache` to price a session; bills may differ (batch, tiers, long context).
 */
export interface ModelPrices {
  input: number;
  cachedInput: number;
  output: number;
  cacheWrite?: number;
  asOf: string;
  source: string;
}

const OPENAI_PRICES = "developers.openai.com/api/docs/pricing";
const ANTHROPIC_PRICES = "platform.claude.com/docs/en/about-claude/pricing";
const PRICES_AS_OF = "2026-11-24";
const anthropicPrices = (input: number, output: number): ModelPrices => ({
  input,
  cachedInput: input / 10,
  output,
  cacheWrite: input * 1.25,
  asOf: PRICES_AS_OF,
  source: ANTHROPIC_PRICES,
});

export interface KnownModel {
  name: string;
  aliases?: string[];
  family: ModelFamily;
  provider: string;
  encoding: TiktokenEncodingName;
  contextWindow: number;
  maxOutputTokens: number;
  imageTilePrice?: ImageTilePrice;
  prices?: ModelPrices;
}

const openai = (
  name: string,
  encoding: TiktokenEncodingName,
  contextWindow: number,
  maxOutputTokens: number,
  extra: Partial<KnownModel> = {},
): KnownModel => ({ name, family: "openai", provider: "openai", encoding, contextWindow, maxOutputTokens, ...extra });

const anthropic = (name: string, maxOutputTokens: number, aliases?: string[], prices?: ModelPrices): KnownModel => ({
  name,
  family: "anthropic",
  provider: "anthropic",
  encoding: "o200k_base",
  contextWindow: 200_000,
  maxOutputTokens,
  ...(aliases ? { aliases } : {}),
  ...(prices ? { prices } : {}),
});

const gemini = (name: string, contextWindow: number, maxOutputTokens: number): KnownModel => ({
  name,
  family: "gemini",
  provider: "google",
  encoding: "o200k_base",
  contextWindow,
  maxOutputTokens,
});

const llama = (name: string, encoding: TiktokenEncodingName, contextWindow: number, aliases: string[]): KnownModel => ({
  name,
  aliases,
  family: "llama",
  provider: "meta",
  encoding,
  contextWindow,
  maxOutputTokens: 8192,
});

export const KNOWN_MODELS: readonly KnownModel[] = [
  // OpenAI, cl100k_base
  openai("gpt-3.5-turbo", "cl100k_base", 16_385, 4_096, { aliases: ["gpt-35-turbo"] }),
  openai("gpt-4", "cl100k_base", 8_192, 8_192),
  openai("gpt-4-turbo", "cl100k_base", 128_000, 4_096, {
    aliases: ["gpt-4-turbo-preview", "gpt-4-1106-preview", "gpt-4-0125-preview", "gpt-4-vision-preview"],
  }),
  // OpenAI, o200k_base
  openai("gpt-4o", "o200k_base", 128_000, 16_384, {
    aliases: ["chatgpt-4o-latest"],
    prices: { input: 2.5, cachedInput: 1.25, output: 10, asOf: PRICES_AS_OF, source: OPENAI_PRICES },
  }),
  openai("gpt-4o-mini", "o200k_base", 128_000, 16_384, {
    imageTilePrice: { base: 2_833, tile: 5_667 },
    prices: { input: 0.15, cachedInput: 0.075, output: 0.6, asOf: PRICES_AS_OF, source: OPENAI_PRICES },
  }),
  openai("gpt-4.1", "o200k_base", 1_047_576, 32_768),
  openai("gpt-4.1-mini", "o200k_base", 1_047_576, 32_768),
  openai("gpt-4.1-nano", "o200k_base", 1_047_576, 32_768),
  openai("gpt-4.5-preview", "o200k_base", 128_000, 16_384),
  openai("o1", "o200k_base", 200_000, 100_000, { aliases: ["o1-pro"] }),
  openai("o1-mini", "o200k_base", 128_000, 65_536),
  openai("o1-preview", "o200k_base", 128_000, 32_768),
  openai("o3", "o200k_base", 200_000, 100_000, { aliases: ["o3-pro"] }),
  openai("o3-mini", "o200k_base", 200_000, 100_000),
  openai("o4-mini", "o200k_base", 200_000, 100_000),
  openai("gpt-5", "o200k_base", 400_000, 128_000, { aliases: ["gpt-5.1"] }),
  openai("gpt-5-mini", "o200k_base", 400_000, 128_000),
  openai("gpt-5-nano", "o200k_base", 400_000, 128_000),
  openai("gpt-5-chat-latest", "o200k_base", 128_000, 16_384),
  // Anthropic: all 200k context (1M for some behind a beta flag — register it if you use it)
  anthropic("claude-3-haiku", 4_096),
  anthropic("claude-3-sonnet", 4_096),
  anthropic("claude-3-opus", 4_096),
  anthropic("claude-3-5-sonnet", 8_192, ["claude-3.5-sonnet"]),
  anthropic("claude-3-5-haiku", 8_192, ["claude-3.5-haiku"], anthropicPrices(0.8, 4)),
  anthropic("claude-3-7-sonnet", 64_000, ["claude-3.7-sonnet"], anthropicPrices(3, 15)),
  anthropic("claude-sonnet-4", 64_000, ["claude-4-sonnet"], anthropicPrices(3, 15)),
  anthropic("claude-sonnet-4-5", 64_000, ["claude-sonnet-4.5"], anthropicPrices(3, 15)),
  anthropic("claude-opus-4", 32_000, ["claude-4-opus"], anthropicPrices(15, 75)),
  anthropic("claude-opus-4-1", 32_000, ["claude-opus-4.1"], anthropicPrices(15, 75)),
  anthropic("claude-opus-4-5", 64_000, ["claude-opus-4.5"], anthropicPrices(5, 25)),
  anthropic("claude-haiku-4-5", 64_000, ["claude-haiku-4.5"], anthropicPrices(1, 5)),
  // The models with server-side compaction (compact_20260112): platform.claude.com/docs/en/build-with-claude/compaction
  anthropic("claude-sonnet-4-6", 64_000, ["claude-sonnet-4.6"], anthropicPrices(3, 15)),
  anthropic("claude-opus-4-6", 128_000, ["claude-opus-4.6"], anthropicPrices(5, 25)),
  // Google Gemini
  gemini("gemini-1.5-pro", 2_097_152, 8_192),
  gemini("gemini-1.5-flash", 1_048_576, 8_192),
  gemini("gemini-2.0-flash", 1_048_576, 8_192),
  gemini("gemini-2.5-pro", 1_048_576, 65_536),
  gemini("gemini-2.5-flash", 1_048_576, 65_536),
  // Meta Llama (Llama 3 extends cl100k's vocabulary; Llama 4 has a ~200k vocabulary)
  llama("llama-3.1", "cl100k_base", 131_072, ["llama3.1", "llama3-1", "meta-llama-3.1"]),
  llama("llama-3.2", "cl100k_base", 131_072, ["llama3.2", "llama3-2", "meta-llama-3.2"]),
  llama("llama-3.3", "cl100k_base", 131_072, ["llama3.3", "llama3-3", "meta-llama-3.3"]),
  llama("llama-4-scout", "o200k_base", 10_000_000, ["llama4-scout", "llama4:scout", "meta-llama-4-scout"]),
  llama("llama-4-maverick", "o200k_base", 1_000_000, ["llama4-maverick", "llama4:maverick", "meta-llama-4-maverick"]),
];
