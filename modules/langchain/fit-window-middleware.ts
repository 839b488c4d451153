/**
 * An agent middleware for LangChain's `createAgent` that fits every model call to the model's
 * window: `middleware: [fitWindowMiddleware({ model: "gpt-4o" })]`.
 *
 * It runs in `wrapModelCall`, not `beforeModel`. beforeModel can only change what the model sees by
 * returning a state update — and the agent's `messages` channel is the conversation itself (its
 * reducer appends and replaces by id; dropping needs RemoveMessage): trimming there deletes history
 * for good, and a later, roomier model (or a summary) could never see it again. wrapModelCall hands
 * the model a request whose `messages` are ours for this one call; the state keeps every message.
 * It also sees what beforeModel cannot: the system message and the tools of this very call
 * (after other middleware changed them), which count against the same window.
 *
 * What is counted is what the model receives: the system message, the messages, the tool
 * definitions (as @langchain/core converts them for the provider) and the reply priming. A fitter
 * is kept per conversation (`configurable.thread_id`), so a turn costs O(new messages) and the cut
 * moves in large steps (the prompt cache keeps hitting); a fitter is rebuilt when the model or the
 * tools change.
 *
 * `strategies` (compaction strategies of @amplifier-ts/strategies, or any CompactionStrategy
 * instance: summarizers, recall, trimming) run in order over the conversation before the final fit,
 * awaited (a summarizer may call a model); what they make comes back as LangChain messages of the
 * caller's classes, and the agent's state still keeps every message.
 */
import type { CompactionStrategy, HistorySearch, ToolDefinition } from "@amplifier-ts/contracts";
import { createWindowFitter, type FitReport, type WindowFitter } from "@amplifier-ts/window";
import type { BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { fitterOptions } from "./fitter-options.js";
import { langchainErrors } from "./langchain-errors.js";
import { toolDefinitionsOf, toolSetKey } from "./tool-definitions.js";

export interface FitWindowMiddlewareOptions {
  /** A model the token registry knows; default: the agent's chat model's `model`. */
  model?: string;
  /** Tokens a request may use (system + messages + tools + reply priming); default: the model's window − output − margin. */
  budget?: number;
  /** Output reserved below the window; default: the chat model's `maxTokens`, else the registry's. */
  maxOutputTokens?: number;
  /** Tokens kept free below window − output (default 1,000). */
  safetyMargin?: number;
  /** Called with what each model call was given: the fit report (tokens, budget, per message kept / truncated / dropped and why). */
  onWindow?: (report: FitReport, info: { thread: string }) => void;
  /** Conversations whose fitter is kept (least recently used forgotten first); default 256. */
  maxThreads?: number;
  /** Compaction strategies (contract instances), run in order before the final fit, awaited. */
  strategies?: readonly CompactionStrategy[];
  /** Search over the conversation, for a recall strategy. */
  search?: HistorySearch;
}

const DEFAULT_THREAD = "(no thread_id)";

export function fitWindowMiddleware(options: FitWindowMiddlewareOptions = {}) {
  const maxThreads = options.maxThreads ?? 256;
  if (!Number.isInteger(maxThreads) || maxThreads < 1) {
    throw langchainErrors.create("UNSUPPORTED_OPTION", "maxThreads must be a positive integer", { module: "langchain", path: "maxThreads", expected: "an integer ≥ 1", given: maxThreads });
  }
  const strategies = options.strategies;
  if (strategies !== undefined && !(Array.isArray(strategies) && strategies.every((s: unknown) => typeof (s as CompactionStrategy | null)?.compact === "function"))) {
    throw langchainErrors.create("UNSUPPORTED_OPTION", "strategies must be an array of compaction strategies", { module: "langchain", path: "strategies", expected: "an array of CompactionStrategy instances ({ name, compact(messages, context) })", given: strategies });
  }
  const fitters = new Map<string, { key: string; fitter: WindowFitter }>();

  function fitterFor(thread: string, model: string | undefined, maxOutputTokens: number | undefined, tools: readonly ToolDefinition[]): WindowFitter {
    const key = `${model}\u0000${maxOutputTokens}\u0000${toolSetKey(tools)}`;
    const kept = fitters.get(thread);
    fitters.delete(thread);
    const entry = kept?.key === key ? kept : { key, fitter: createWindowFitter({ ...fitterOptions({ model, budget: options.budget, maxOutputTokens, safetyMargin: options.safetyMargin, tools }), ...(strategies ? { strategies } : {}), ...(options.search ? { search: options.search } : {}) }) };
    fitters.set(thread, entry);
    if (fitters.size > maxThreads) fitters.delete(fitters.keys().next().value as string);
    return entry.fitter;
  }

  return createMiddleware({
    name: "FitWindowMiddleware",
    wrapModelCall: async (request, handler) => {
      const chatModel = request.model as { model?: unknown; modelName?: unknown; maxTokens?: unknown };
      const model = options.model ?? (typeof chatModel.model === "string" ? chatModel.model : typeof chatModel.modelName === "string" ? chatModel.modelName : undefined);
      if (model === undefined && options.budget === undefined) {
        throw langchainErrors.create("NO_MODEL", "fitWindowMiddleware cannot tell the model's window", { module: "langchain", path: "model", expected: "fitWindowMiddleware({ model }) or ({ budget }), or a chat model with a `model` name", given: typeof chatModel });
      }
      const maxOutputTokens = options.maxOutputTokens ?? (typeof chatModel.maxTokens === "number" && chatModel.maxTokens > 0 ? chatModel.maxTokens : undefined);
      const thread = threadOf(request.runtime);
      const fitter = fitterFor(thread, model, maxOutputTokens, toolDefinitionsOf(request.tools));
      // The agent sends its system message first when it has text: it is fitted with the rest (kept, first).
      const system = request.systemMessage.text === "" ? undefined : request.systemMessage;
      const input: BaseMessage[] = system ? [system, ...request.messages] : request.messages;
      // fitAsync: strategies may await (a summarizer's model call); without strategies it is the same window as fit().
      const { messages, report } = strategies?.length ? await fitter.fitAsync(input, { report: true }) : fitter.fit(input, { report: true });
      options.onWindow?.(report, { thread });
      return handler({ ...request, messages: system ? messages.filter((m) => m !== system) : messages });
    },
  });
}

function threadOf(runtime: { configurable?: Record<string, unknown> } | undefined): string {
  const id = runtime?.configurable?.thread_id;
  return typeof id === "string" || typeof id === "number" ? String(id) : DEFAULT_THREAD;
}
