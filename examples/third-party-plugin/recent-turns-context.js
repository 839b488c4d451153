import { randomUUID } from "node:crypto";
import { createError, isAmplifierError, validateMessage, validateMessages } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { HistoryIndex, assembleWindow, freezeDeep, resolveBudget, shallowCopy } from "@amplifier-ts/window";
import { selectRecentTurns } from "./recent-turns.js";

export const MODULE_NAME = "amplifier-module-context-example";
export const DEFAULTS = Object.freeze({ maxTurns: 8, maxTokens: 100_000, safetyMargin: 1_000, model: "gpt-4o" });

/**
 * A context manager that keeps every message in memory and sends the model the most recent
 * `maxTurns` turns that fit the budget. The policy is this module's (recent-turns.js); the rest
 * is the amplifier-ts toolkit:
 *
 * | step                          | toolkit                                                                     |
 * |-------------------------------|-----------------------------------------------------------------------------|
 * | validate what comes in        | `validateMessage(s)` (@amplifier-ts/contracts)                              |
 * | index the history (O(1) each) | `HistoryIndex`: units, turn starts, critical units                          |
 * | the budget                    | `resolveBudget`: tokenBudget, else the provider's window, else maxTokens    |
 * | count tokens                  | the host's "tokens" capability, else `getTokenCounter` (@amplifier-ts/tokens) |
 * | fit and repair the selection  | `assembleWindow` (the request's tools counted), no hysteresis (1 = 1)       |
 *
 * Stored messages are deep-copied once and deep-frozen; reads hand out shallow copies, so no
 * caller can change the history through what it gets. Errors are the toolkit's AmplifierErrors,
 * re-issued with this module's name (the original is their `cause`).
 */
export class RecentTurnsContext {
  #history = [];
  #index = new HistoryIndex();
  #options;
  #hooks;
  #tokens;

  /** @param {import("./index.js").RecentTurnsInit} [init] */
  constructor({ hooks, tokens, ...options } = {}) {
    this.#options = { ...DEFAULTS, ...options };
    this.#hooks = hooks;
    this.#tokens = tokens ?? (() => undefined);
  }

  get options() {
    return { ...this.#options };
  }

  async addMessage(message) {
    const stored = owned(() => toStored(validateMessage(message)));
    this.#history.push(stored);
    this.#index.append(stored);
  }

  async getMessages() {
    return this.#history.map(shallowCopy);
  }

  async setMessages(messages) {
    this.#replace(owned(() => validateMessages(messages).map(toStored)));
  }

  async clear() {
    this.#replace([]);
  }

  async clearRun(runId) {
    this.#replace(this.#history.filter((m) => m.metadata?.runId !== runId));
  }

  async getMessagesForRequest(tokenBudget, provider, options = {}) {
    const info = provider ? await provider.getInfo() : undefined;
    const model = info?.defaults?.model ?? this.#options.model;
    const { maxTurns, maxTokens, safetyMargin } = this.#options;
    const history = this.#history;
    const selection = selectRecentTurns(this.#index, maxTurns);
    const counter = (this.#tokens() ?? { getTokenCounter }).getTokenCounter(model);
    const { messages, report } = owned(() => {
      const extraMessages = validateMessages(options?.extraMessages ?? [], "extraMessages");
      const budget = resolveBudget({ tokenBudget, providerInfo: info, safetyMargin, maxTokens });
      return assembleWindow(selection, { budget, counter, extraMessages, tools: options?.tools, compactThreshold: 1, compactTarget: 1 });
    });
    const removed = history.length - selection.length + report.removed;
    const { syntheticResults, orphansDropped } = report.repaired;
    if (removed > 0 || report.truncated > 0 || syntheticResults + orphansDropped > 0) {
      const tokens = counter.countRequest(history, options?.tools);
      await this.#hooks?.emit("context:pre_compact", { messageCount: history.length, tokens, budget: report.budget });
      await this.#hooks?.emit("context:post_compact", {
        messageCount: report.windowMessages,
        tokens: report.windowTokens,
        removed,
        truncated: report.truncated,
        summarized: 0,
        strategies: selection.length < history.length ? ["recent-turns", "window"] : ["window"],
        durationMs: report.durationMs,
        repaired: report.repaired,
      });
    }
    return messages;
  }

  #replace(messages) {
    this.#history = messages;
    this.#index = new HistoryIndex();
    for (const message of messages) this.#index.append(message);
  }
}

/** A deep, frozen copy with metadata.id and metadata.timestamp filled in. */
function toStored(message) {
  const copy = structuredClone(message);
  copy.metadata = { ...copy.metadata };
  copy.metadata.id ??= randomUUID();
  copy.metadata.timestamp ??= new Date().toISOString();
  return freezeDeep(copy);
}

/** Runs `task`; a toolkit error keeps its code and details and names this module instead. */
function owned(task) {
  try {
    return task();
  } catch (error) {
    if (!isAmplifierError(error) || error.details.module === MODULE_NAME) throw error;
    throw createError(error.code, undefined, { ...error.details, module: MODULE_NAME, cause: error });
  }
}
