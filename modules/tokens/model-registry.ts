/**
 * The model registry: what the token counter and the budget need to know about a model —
 * context window, maximum output, the encoding to count with, the family (which decides the
 * image rule and the default safety factor) and the provider.
 *
 * Resolution of a model name, first match wins:
 *  1. normalise: lower-case; drop a path prefix (`openai/gpt-4o`, `models/gemini-2.5-pro`,
 *     `meta-llama/Llama-3.3-70B-Instruct`) and a Bedrock vendor prefix
 *     (`us.anthropic.claude-…`, `meta.llama3-1-…`);
 *  2. an exact registered name or alias;
 *  3. the longest registered name or alias that prefixes it at a boundary (`-`, `:`, `@`):
 *     `gpt-4o-2024-08-06` → `gpt-4o`, `gpt-4o-mini-2024-07-18` → `gpt-4o-mini`, but
 *     `gpt-4.1` never resolves to `gpt-4` (`.` is not a boundary).
 * The registry is process-wide; registerModel() returns its own teardown.
 */
import { createError } from "@amplifier-ts/contracts";
import {
  FAMILY_SAFETY_FACTORS,
  KNOWN_MODELS,
  type ImageTilePrice,
  type ModelFamily,
  type ModelPrices,
} from "./known-models.js";
import { TIKTOKEN_ENCODINGS, type TiktokenEncodingName } from "./tiktoken-tokenizer.js";

export type { ImageTilePrice, ModelFamily, ModelPrices } from "./known-models.js";

export interface ModelInfo {
  /** The registered name the model resolved to (`gpt-4o` for `gpt-4o-2024-08-06`). */
  readonly name: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly encoding: TiktokenEncodingName;
  readonly family: ModelFamily;
  readonly provider: string;
  /** Counts for this model are multiplied by it (rounded up); the family's default unless registered. */
  readonly safetyFactor: number;
  /** OpenAI image tile prices when they differ from 85 + 170 per tile. */
  readonly imageTilePrice?: ImageTilePrice;
  /** List prices (USD per million tokens, dated) where known; `replay --cache` prices turns with them. */
  readonly prices?: ModelPrices;
}

/** What registerModel() takes: ModelInfo without the name, safetyFactor optional, plus aliases. */
export interface ModelRegistration {
  contextWindow: number;
  maxOutputTokens: number;
  encoding: TiktokenEncodingName;
  family: ModelFamily;
  provider: string;
  safetyFactor?: number;
  imageTilePrice?: ImageTilePrice;
  prices?: ModelPrices;
  aliases?: string[];
}

const FAMILIES: readonly ModelFamily[] = ["openai", "anthropic", "gemini", "llama", "other"];
const BOUNDARIES = new Set(["-", ":", "@"]);

/** Registered names and aliases (normalised) → info. */
const entries = new Map<string, ModelInfo>();
/** Memo of resolved lookups; cleared whenever the registry changes. */
const resolved = new Map<string, ModelInfo | undefined>();

for (const { aliases, ...model } of KNOWN_MODELS) {
  const info = freeze({ ...model, safetyFactor: FAMILY_SAFETY_FACTORS[model.family] });
  for (const key of [model.name, ...(aliases ?? [])]) entries.set(normalizeModelName(key), info);
}

/** The registered model `model` resolves to, or undefined when none matches. */
export function getModelInfo(model: string): ModelInfo | undefined {
  if (typeof model !== "string") return undefined;
  if (resolved.has(model)) return resolved.get(model);
  const info = resolve(normalizeModelName(model));
  if (resolved.size >= 1_000) resolved.clear(); // bound the memo against unbounded distinct names
  resolved.set(model, info);
  return info;
}

/** Every registered model (aliases folded into their model), sorted by name. */
export function listModels(): ModelInfo[] {
  const unique = new Map<string, ModelInfo>();
  for (const info of entries.values()) unique.set(info.name, info);
  return [...unique.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Register (or override) a model. Validated now, so a bad entry fails where it is written.
 * Returns a teardown that restores what the names resolved to before — unless a later
 * registration has replaced them since, which it leaves alone.
 */
export function registerModel(name: string, registration: ModelRegistration): () => void {
  validateRegistration(name, registration);
  const { aliases = [], safetyFactor, ...rest } = registration;
  const info = freeze({ ...rest, name, safetyFactor: safetyFactor ?? FAMILY_SAFETY_FACTORS[registration.family] });
  const keys = [name, ...aliases].map(normalizeModelName);
  const previous = keys.map((key) => entries.get(key));
  for (const key of keys) entries.set(key, info);
  resolved.clear();
  return () => {
    keys.forEach((key, i) => {
      if (entries.get(key) !== info) return;
      const before = previous[i];
      if (before) entries.set(key, before);
      else entries.delete(key);
    });
    resolved.clear();
  };
}

/** The normal form names are matched in (see the file comment). */
export function normalizeModelName(model: string): string {
  let name = model.trim().toLowerCase();
  const slash = name.lastIndexOf("/");
  if (slash >= 0) name = name.slice(slash + 1);
  return name.replace(/^(?:(?:us|eu|apac|global)\.)?(?:anthropic|meta)\./, "");
}

function resolve(name: string): ModelInfo | undefined {
  const exact = entries.get(name);
  if (exact) return exact;
  let best: ModelInfo | undefined;
  let bestLength = 0;
  for (const [key, info] of entries) {
    if (key.length > bestLength && name.startsWith(key) && BOUNDARIES.has(name.charAt(key.length))) {
      best = info;
      bestLength = key.length;
    }
  }
  return best;
}

function freeze(info: ModelInfo): ModelInfo {
  return Object.freeze({ ...info });
}

function validateRegistration(name: unknown, r: unknown): asserts r is ModelRegistration {
  const fail = (path: string, expected: string, given: unknown): never => {
    throw createError("INVALID_ARGUMENT", "Invalid model registration", {
      module: "@amplifier-ts/tokens",
      path,
      expected,
      given,
    });
  };
  if (typeof name !== "string" || name.trim() === "") fail("name", "a non-empty model name", name);
  if (typeof r !== "object" || r === null) return fail("info", "a ModelRegistration object", r);
  const info = r as Record<string, unknown>;
  const positiveInt = (key: string) => {
    const v = info[key];
    if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) fail(`info.${key}`, "a positive integer", v);
  };
  positiveInt("contextWindow");
  positiveInt("maxOutputTokens");
  if ((info.maxOutputTokens as number) > (info.contextWindow as number)) {
    fail("info.maxOutputTokens", `at most contextWindow (${String(info.contextWindow)})`, info.maxOutputTokens);
  }
  if (!TIKTOKEN_ENCODINGS.includes(info.encoding as TiktokenEncodingName)) {
    fail("info.encoding", TIKTOKEN_ENCODINGS.map((e) => `"${e}"`).join(" or "), info.encoding);
  }
  if (!FAMILIES.includes(info.family as ModelFamily)) {
    fail("info.family", `one of ${FAMILIES.map((f) => `"${f}"`).join(", ")}`, info.family);
  }
  if (typeof info.provider !== "string" || info.provider === "") fail("info.provider", "a non-empty string", info.provider);
  const factor = info.safetyFactor;
  if (factor !== undefined && (typeof factor !== "number" || !Number.isFinite(factor) || factor <= 0)) {
    fail("info.safetyFactor", "a positive finite number", factor);
  }
  const aliases = info.aliases;
  if (aliases !== undefined && (!Array.isArray(aliases) || aliases.some((a) => typeof a !== "string" || a.trim() === ""))) {
    fail("info.aliases", "an array of non-empty strings", aliases);
  }
  const prices = info.prices as Record<string, unknown> | undefined;
  if (prices !== undefined) {
    if (typeof prices !== "object" || prices === null) fail("info.prices", "{ input, cachedInput, output, cacheWrite?, asOf, source }", prices);
    for (const key of ["input", "cachedInput", "output", "cacheWrite"]) {
      const v = prices[key];
      if (key === "cacheWrite" && v === undefined) continue;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) fail(`info.prices.${key}`, "a non-negative number of USD per million tokens", v);
    }
    for (const key of ["asOf", "source"]) if (typeof prices[key] !== "string" || prices[key] === "") fail(`info.prices.${key}`, "a non-empty string", prices[key]);
  }
  const price = info.imageTilePrice as Record<string, unknown> | undefined;
  if (price !== undefined) {
    for (const key of ["base", "tile"]) {
      const v = price?.[key];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) fail(`info.imageTilePrice.${key}`, "a non-negative number", v);
    }
  }
}
