import type { HistoryStore, ToolDefinition } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import type { HistoryStoreConfig } from "@amplifier-ts/stores";
import { getModelInfo } from "@amplifier-ts/tokens";
import { resolveBudget } from "@amplifier-ts/window";
import { MODULE } from "./session-errors.js";

export interface AmplifierSessionOptions {
  /** The session's id in the store: 1-128 characters of [A-Za-z0-9._-], no leading dot (the store checks it). */
  sessionId: string;
  /**
   * Where the items live: a HistoryStore you built (the session never closes it, only lets go of
   * its session), a store config (`{ type: "jsonl", storagePath }`, `{ type: "postgres", url }`,
   * `{ type: "redis", url, keyPrefix }` — the session builds it and closes it on close()), or a
   * store URL (`./sessions`, `jsonl:./sessions`, `postgres://…`, `redis://…`).
   */
  store: HistoryStore | HistoryStoreConfig | string;
  /** The agent the history belongs to in the store (HistoryStore contract); default "default". */
  agentId?: string;
  /** The model the agent calls: its token counter and, without `budget`, its window (default "gpt-4o"). */
  model?: string;
  /** Tokens the whole request may use; default the model's window − its max output − `safetyMargin`. */
  budget?: number;
  /** Output tokens reserved when the budget comes from the model's window (default the model's maximum). */
  maxOutputTokens?: number;
  /** Tokens kept free below the window when the budget comes from it (default 1,000). */
  safetyMargin?: number;
  /** The agent's instructions: the SDK sends them with every request, so they are counted. */
  instructions?: string;
  /**
   * The agent's tools (`agent.tools`, or ToolDefinitions): the SDK sends their definitions with
   * every request, so they are counted.
   */
  tools?: readonly SessionTool[];
  /**
   * Tokens kept free for what the Runner adds after the history within one run: the new input,
   * and the run's tool calls, results and answers (default a quarter of the budget). The history
   * `getItems()` returns fits budget − instructions − tools − turnReserve.
   */
  turnReserve?: number;
}

/** A tool as the SDK holds it (`{ type, name, description, parameters }`) or our ToolDefinition. */
export type SessionTool = ToolDefinition | { readonly name: string; readonly description?: string; readonly parameters?: unknown; readonly type?: string };

export interface ResolvedSessionOptions {
  budget: number;
  model: string;
  turnReserve: number;
  instructions: string | undefined;
  tools: ToolDefinition[];
}

const DEFAULT_MODEL = "gpt-4o";

export function resolveSessionOptions(options: AmplifierSessionOptions): ResolvedSessionOptions {
  if (typeof options !== "object" || options === null) throw invalid("options", "an options object { sessionId, store, … }", options);
  if (typeof options.sessionId !== "string") throw invalid("sessionId", "a session id string", options.sessionId);
  const store = options.store as unknown;
  if (typeof store !== "string" && (typeof store !== "object" || store === null)) throw invalid("store", "a HistoryStore, a store config { type, … } or a store URL", store);
  const model = options.model ?? DEFAULT_MODEL;
  if (typeof model !== "string" || model === "") throw invalid("model", "a model name", model);
  positive("budget", options.budget);
  positive("maxOutputTokens", options.maxOutputTokens);
  if (options.turnReserve !== undefined && (!Number.isInteger(options.turnReserve) || options.turnReserve < 0)) throw invalid("turnReserve", "an integer ≥ 0", options.turnReserve);
  if (options.instructions !== undefined && typeof options.instructions !== "string") throw invalid("instructions", "a string (the agent's instructions)", options.instructions);
  if (options.tools !== undefined && !Array.isArray(options.tools)) throw invalid("tools", "an array of tools (agent.tools) or ToolDefinitions", options.tools);
  const info = getModelInfo(model);
  const budget = resolveBudget({
    ...(options.budget !== undefined ? { tokenBudget: options.budget } : {}),
    model,
    ...(info && options.maxOutputTokens !== undefined ? { modelInfo: { contextWindow: info.contextWindow, maxOutputTokens: options.maxOutputTokens } } : {}),
    ...(options.safetyMargin !== undefined ? { safetyMargin: options.safetyMargin } : {}),
  });
  const turnReserve = options.turnReserve ?? Math.floor(budget / 4);
  if (turnReserve >= budget) throw invalid("turnReserve", `fewer tokens than the budget (${budget})`, turnReserve);
  return { budget, model, turnReserve, instructions: options.instructions, tools: (options.tools ?? []).map((tool, index) => toolDefinition(tool, index)) };
}

function toolDefinition(tool: SessionTool, index: number): ToolDefinition {
  if (typeof tool !== "object" || tool === null) throw invalid(`tools[${index}]`, "a tool object", tool);
  if ("function" in tool && typeof tool.function === "object" && tool.function !== null) return tool as ToolDefinition;
  const { name, description, parameters } = tool as { name?: unknown; description?: unknown; parameters?: unknown };
  if (typeof name !== "string" || name === "") throw invalid(`tools[${index}].name`, "the tool's name", name);
  return {
    type: "function",
    function: {
      name,
      ...(typeof description === "string" ? { description } : {}),
      ...(typeof parameters === "object" && parameters !== null ? { parameters: parameters as Record<string, unknown> } : {}),
    },
  };
}

function positive(path: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0)) throw invalid(path, "a positive integer (tokens)", value);
}

function invalid(path: string, expected: string, given: unknown) {
  return createError("INVALID_ARGUMENT", `AmplifierSession: ${path} must be ${expected}`, { module: MODULE, path, expected, given });
}
