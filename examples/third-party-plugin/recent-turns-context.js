import { ContextExampleError, MODULE_NAME } from "./errors.js";
import { assembleRecentTurns } from "./recent-turns-window.js";
import { counterFor } from "./token-count.js";
import { validateMessage, validateMessages } from "./validate-message.js";

export const DEFAULTS = Object.freeze({ maxTurns: 8, maxTokens: 100_000, safetyMargin: 1_000, model: "gpt-4o" });

/**
 * A context manager that keeps every message in memory and sends the model the last `maxTurns`
 * turns that fit the budget (see recent-turns-window.js), with the window invariants of
 * amplifier-ts's contracts/CONTEXT.md.
 *
 * Stored messages are deep-copied once and deep-frozen; reads hand out shallow copies (own
 * top-level object and metadata), so no caller can change the history through what it gets.
 */
export class RecentTurnsContext {
  #history = [];
  #options;
  #hooks;
  #tokens;

  /**
   * @param {{ maxTurns?: number, maxTokens?: number, safetyMargin?: number, model?: string,
   *           hooks?: { emit(event: string, data: unknown): unknown }, tokens?: () => unknown }} [init]
   *   `tokens` returns the host's "tokens" capability, looked up at each request (see token-count.js).
   */
  constructor(init = {}) {
    const { hooks, tokens, ...options } = init;
    this.#options = { ...DEFAULTS, ...options };
    this.#hooks = hooks;
    this.#tokens = tokens ?? (() => undefined);
  }

  get options() {
    return { ...this.#options };
  }

  async addMessage(message) {
    validateMessage(message);
    this.#history.push(toStored(message));
  }

  async getMessages() {
    return this.#history.map(shallowCopy);
  }

  async setMessages(messages) {
    validateMessages(messages);
    this.#history = messages.map(toStored);
  }

  async clear() {
    this.#history = [];
  }

  async clearRun(runId) {
    this.#history = this.#history.filter((m) => m.metadata?.runId !== runId);
  }

  /**
   * budget = tokenBudget ?? provider context_window − max_output_tokens − safetyMargin ?? maxTokens.
   * The model counted for is the provider's default model, else config.model.
   */
  async getMessagesForRequest(tokenBudget, provider, options = {}) {
    const history = this.#history.slice(); // a snapshot: messages added while we await are for the next request
    const extras = options?.extraMessages ?? [];
    validateMessages(extras);
    const { budget, model } = await this.#budgetFor(tokenBudget, provider);
    const counter = counterFor(this.#tokens(), model);
    const started = performance.now();

    const result = assembleRecentTurns({ history, extras: extras.map(shallowCopy), budget, maxTurns: this.#options.maxTurns, counter });
    const repairedAny = result.repaired.interruptedCalls.length + result.repaired.orphanResults.length > 0;
    if (result.compacted || repairedAny) {
      await this.#emit("context:pre_compact", { messageCount: history.length, tokens: result.fullTokens, budget });
      await this.#emit("context:post_compact", {
        messageCount: result.window.length,
        tokens: result.tokens,
        removed: result.removed,
        truncated: 0,
        summarized: 0,
        strategies: result.compacted ? ["recent-turns"] : [],
        durationMs: performance.now() - started,
        ...(repairedAny ? { repaired: result.repaired } : {}),
      });
    }
    return result.window.map(shallowCopy);
  }

  async #budgetFor(tokenBudget, provider) {
    let model = this.#options.model;
    let budget;
    let source;
    if (tokenBudget !== undefined && tokenBudget !== null) {
      budget = tokenBudget;
      source = "tokenBudget";
    }
    if (provider) {
      const info = await provider.getInfo();
      const defaults = info?.defaults ?? {};
      if (typeof defaults.model === "string" && defaults.model !== "") model = defaults.model;
      if (budget === undefined && Number.isFinite(defaults.context_window) && Number.isFinite(defaults.max_output_tokens)) {
        budget = defaults.context_window - defaults.max_output_tokens - this.#options.safetyMargin;
        source = "provider.getInfo().defaults: context_window − max_output_tokens − safetyMargin";
      }
    }
    if (budget === undefined) {
      budget = this.#options.maxTokens;
      source = "config.maxTokens";
    }
    if (typeof budget !== "number" || !Number.isFinite(budget) || budget <= 0) {
      throw new ContextExampleError("INVALID_BUDGET", `the token budget must be a positive finite number, got ${String(budget)} (from ${source})`, {
        path: source,
        expected: "a positive finite number of tokens",
        given: budget,
      });
    }
    return { budget, model };
  }

  async #emit(event, data) {
    if (typeof this.#hooks?.emit === "function") await this.#hooks.emit(event, data);
  }
}

/** A deep, frozen copy with metadata.id and metadata.timestamp filled in. */
function toStored(message) {
  let copy;
  try {
    copy = structuredClone(message);
  } catch (cause) {
    throw new ContextExampleError("INVALID_MESSAGE", "message: expected plain JSON data", { path: "message", expected: "plain JSON data", cause });
  }
  copy.metadata = { ...copy.metadata };
  copy.metadata.id ??= globalThis.crypto.randomUUID();
  copy.metadata.timestamp ??= new Date().toISOString();
  return deepFreeze(copy);
}

function shallowCopy(message) {
  return message.metadata === undefined ? { ...message } : { ...message, metadata: { ...message.metadata } };
}

function deepFreeze(value) {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export { MODULE_NAME };
