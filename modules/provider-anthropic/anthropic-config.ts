import { createError, parseValid } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import { z } from "zod";
import { contextManagementSchema } from "./context-management.js";

/** The config of provider-anthropic (amplifier.config.json `providers[i].config`), one schema for the loader and the constructor. */
export const anthropicProviderConfigSchema = z.strictObject({
  model: z.string().min(1).meta({ description: "The model to call (claude-sonnet-4-5, claude-opus-4-1 …); its window and output limit come from the model registry." }),
  apiKey: z.string().min(1).optional().meta({ description: "Default: the environment variable ANTHROPIC_API_KEY." }),
  baseURL: z.url().optional().meta({ description: "Default: ANTHROPIC_BASE_URL, else the SDK's https://api.anthropic.com." }),
  timeoutMs: z.number().int().positive().default(600_000).meta({ description: "Milliseconds one attempt may take, from the request to the answer's last byte (body or stream included); each retry has its own. Past it: PROVIDER/TIMEOUT." }),
  streamIdleTimeoutMs: z.number().int().positive().default(300_000).meta({ description: "Milliseconds a streamed answer may stay silent between two pieces (a model that thinks long before it writes may need more). Past it: PROVIDER/TIMEOUT, phase stream-idle." }),
  maxRetries: z.number().int().min(0).max(10).default(2).meta({ description: "Retries of the SDK on 408, 409, 429, 5xx and connection errors." }),
  maxOutputTokens: z.number().int().positive().optional().meta({ description: "max_tokens of each call (the API requires one). Default: the model's maximum output from the registry.", aliases: ["max_tokens", "maxTokens"] }),
  contextWindow: z.number().int().positive().optional().meta({ description: "The model's context window, for a model the registry does not know." }),
  cache: z.boolean().default(true).meta({ description: "cache_control breakpoints on the stable prefix (toAnthropic's cache option): the window's prefix is read from the prompt cache." }),
  stream: z.boolean().default(false).meta({ description: "Stream every call (deltas as content_block:delta / thinking:delta events), not only those with onDelta." }),
  contextManagement: contextManagementSchema.optional(),
});

export type AnthropicProviderConfigInput = z.input<typeof anthropicProviderConfigSchema>;
export type AnthropicProviderConfig = z.output<typeof anthropicProviderConfigSchema>;

export interface ResolvedAnthropicConfig extends AnthropicProviderConfig {
  apiKey: string;
  contextWindow: number;
  /** max_tokens of each call. */
  maxOutputTokens: number;
}

export const MODULE_NAME = "provider-anthropic";

/**
 * The config validated (INVALID_MODULE_CONFIG naming the key), the key and URL taken from the
 * environment when the config has none (MISSING_API_KEY when neither has a key), the model's
 * limits from the registry (UNKNOWN_MODEL when it does not know the model and the config gives no
 * contextWindow and maxOutputTokens).
 */
export function resolveAnthropicConfig(config: unknown, env: Readonly<Record<string, string | undefined>>, missingKey: () => Error): ResolvedAnthropicConfig {
  const parsed = parseValid(anthropicProviderConfigSchema, config ?? {}, { code: "INVALID_MODULE_CONFIG", path: "config", details: { module: MODULE_NAME } });
  const apiKey = parsed.apiKey ?? nonEmpty(env.ANTHROPIC_API_KEY);
  if (apiKey === undefined) throw missingKey();
  const baseURL = parsed.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL);
  const info = getModelInfo(parsed.model);
  const contextWindow = parsed.contextWindow ?? info?.contextWindow;
  const maxOutputTokens = parsed.maxOutputTokens ?? info?.maxOutputTokens;
  if (contextWindow === undefined || maxOutputTokens === undefined) {
    throw createError("UNKNOWN_MODEL", `the model registry does not know "${parsed.model}"`, {
      module: MODULE_NAME,
      path: "config.model",
      expected: "a model of the registry (@amplifier-ts/tokens), or config.contextWindow and config.maxOutputTokens for another one",
      given: parsed.model,
    });
  }
  return { ...parsed, apiKey, ...(baseURL === undefined ? {} : { baseURL }), contextWindow, maxOutputTokens: Math.min(maxOutputTokens, contextWindow) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
