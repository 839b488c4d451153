import { createError, parseValid } from "@amplifier-ts/contracts";
import { getModelInfo } from "@amplifier-ts/tokens";
import { z } from "zod";

/** The config of provider-openai (amplifier.config.json `providers[i].config`), one schema for the loader and the constructor. */
export const openAIProviderConfigSchema = z.strictObject({
  model: z.string().min(1).meta({ description: "The model to call (gpt-4o, gpt-4.1, o3 …); its window and output limit come from the model registry." }),
  api: z.enum(["chat", "responses"]).default("chat").meta({ description: "chat: Chat Completions (/v1/chat/completions); responses: the Responses API (/v1/responses)." }),
  apiKey: z.string().min(1).optional().meta({ description: "Default: the environment variable OPENAI_API_KEY." }),
  baseURL: z.url().optional().meta({ description: "Default: OPENAI_BASE_URL, else the SDK's https://api.openai.com/v1." }),
  timeoutMs: z.number().int().positive().default(600_000).meta({ description: "Milliseconds one attempt may take, from the request to the answer's last byte (body or stream included); each retry has its own. Past it: PROVIDER/TIMEOUT." }),
  streamIdleTimeoutMs: z.number().int().positive().default(300_000).meta({ description: "Milliseconds a streamed answer may stay silent between two pieces (a model that thinks long before it writes may need more). Past it: PROVIDER/TIMEOUT, phase stream-idle." }),
  maxRetries: z.number().int().min(0).max(10).default(2).meta({ description: "Retries of the SDK on 408, 409, 429, 5xx and connection errors." }),
  maxOutputTokens: z.number().int().positive().optional().meta({ description: "Cap on the answer's tokens (max_completion_tokens / max_output_tokens). Default: the API's.", aliases: ["max_tokens", "maxTokens", "max_completion_tokens"] }),
  contextWindow: z.number().int().positive().optional().meta({ description: "The model's context window, for a model the registry does not know." }),
  stream: z.boolean().default(false).meta({ description: "Stream every call (deltas as content_block:delta / thinking:delta events), not only those with onDelta." }),
  contextManagement: z
    .array(
      z.strictObject({
        type: z.literal("compaction"),
        compact_threshold: z.number().int().positive().meta({ description: "Input tokens past which the API compacts the conversation into an encrypted compaction item (below the model's context window)." }),
      }),
    )
    .length(1)
    .optional()
    .meta({ description: 'Responses only: sent as the request\'s context_management, [{ "type": "compaction", "compact_threshold": N }] — server-side compaction (developers.openai.com/api/docs/guides/compaction). Default: none.' }),
}).superRefine((config, ctx) => {
  if (config.contextManagement !== undefined && config.api !== "responses") {
    ctx.addIssue({ code: "custom", path: ["contextManagement"], message: 'context_management is a Responses API parameter: set api to "responses"' });
  }
});

export type OpenAIProviderConfigInput = z.input<typeof openAIProviderConfigSchema>;
export type OpenAIProviderConfig = z.output<typeof openAIProviderConfigSchema>;

/** What a call needs: the parsed config with the key and URL resolved and the model's limits. */
export interface ResolvedOpenAIConfig extends OpenAIProviderConfig {
  apiKey: string;
  contextWindow: number;
  maxOutputLimit: number;
}

export const MODULE_NAME = "provider-openai";

/**
 * The config validated (INVALID_MODULE_CONFIG naming the key), the key and URL taken from the
 * environment when the config has none (MISSING_API_KEY when neither has a key), the model's
 * limits from the registry (UNKNOWN_MODEL when it does not know the model and the config gives no
 * contextWindow).
 */
export function resolveOpenAIConfig(config: unknown, env: Readonly<Record<string, string | undefined>>, missingKey: () => Error): ResolvedOpenAIConfig {
  const parsed = parseValid(openAIProviderConfigSchema, config ?? {}, { code: "INVALID_MODULE_CONFIG", path: "config", details: { module: MODULE_NAME } });
  const apiKey = parsed.apiKey ?? nonEmpty(env.OPENAI_API_KEY);
  if (apiKey === undefined) throw missingKey();
  const baseURL = parsed.baseURL ?? nonEmpty(env.OPENAI_BASE_URL);
  const info = getModelInfo(parsed.model);
  const contextWindow = parsed.contextWindow ?? info?.contextWindow;
  if (contextWindow === undefined) {
    throw createError("UNKNOWN_MODEL", `the model registry does not know "${parsed.model}"`, {
      module: MODULE_NAME,
      path: "config.model",
      expected: "a model of the registry (@amplifier-ts/tokens), or config.contextWindow (and maxOutputTokens) for another one",
      given: parsed.model,
    });
  }
  const threshold = parsed.contextManagement?.[0]?.compact_threshold;
  if (threshold !== undefined && threshold >= contextWindow) {
    throw createError("INVALID_MODULE_CONFIG", "compact_threshold must be below the model's context window", {
      module: MODULE_NAME,
      path: "config.contextManagement[0].compact_threshold",
      expected: `an integer below ${contextWindow} (the context window of ${parsed.model})`,
      given: threshold,
    });
  }
  const maxOutputLimit = Math.min(parsed.maxOutputTokens ?? info?.maxOutputTokens ?? Math.floor(contextWindow / 4), contextWindow);
  return { ...parsed, apiKey, ...(baseURL === undefined ? {} : { baseURL }), contextWindow, maxOutputLimit };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
