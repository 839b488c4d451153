/**
 * Matches the window a context manager produced with the bill of the call that sent it, and keeps
 * the calibration those pairs feed (token-calibration.ts).
 *
 * | step                         | what happens                                                       |
 * |------------------------------|--------------------------------------------------------------------|
 * | getMessagesForRequest        | `expect()`: the window and its model become the pending request (a newer window replaces it); its counted size and raw count (factor 1) are computed only when a bill arrives, so a session whose provider reports no usage pays nothing per window |
 * | provider:response on the bus | `settle()` with its usage, if the response's model resolves to the pending request's model (or names none) |
 * | context.recordUsage(usage)   | the same, explicitly (orchestrators without a provider module)      |
 * | settled                      | the pending request is consumed: one bill per window, never two     |
 * | a bill with `clearedInputTokens` | calibrated on inputTokens + clearedInputTokens: the provider's context editing cleared that part of the window after it was sent (Anthropic applied_edits) |
 * | a bill with `compaction`     | the pending request is consumed, nothing calibrated: the provider compacted the window on its server, so the billed input is not the window's (Anthropic bills the compacted context, OpenAI both together) |
 *
 * A manager whose config fixes `safetyFactor` still records the drift but never changes its factor.
 */
import type { BilledUsage, Message, ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter, type TokenCounter } from "@amplifier-ts/tokens";
import { modelKey, TokenCalibration, type CalibrationOutcome } from "./token-calibration.js";

/** A window sent (or about to be), awaiting its bill. */
export interface PendingRequest {
  model: string;
  /** What the window was counted as (with `factor`): messages + priming + tools. */
  counted: number;
  /** The same request at factor 1. */
  raw: number;
  factor: number;
  /** The factor the model's counter has without calibration (the family's default). */
  defaultFactor: number;
}

/** What one settled bill reports (the payload of `context:calibration`). */
export interface UsageRecord extends CalibrationOutcome {
  counted: number;
  raw: number;
  billed: number;
  /** billed − counted: positive means the window was counted low; absent for a bill that is not a number. */
  drift?: number;
  /** Whether the factor follows the calibration (false when the config fixes safetyFactor). */
  applied: boolean;
}

/** The window itself, until a bill asks for its counts. */
interface PendingWindow {
  model: string;
  counter: TokenCounter;
  messages: readonly Message[];
  tools: readonly ToolDefinition[] | undefined;
  defaultFactor: number;
  counts?: PendingRequest;
}

export class UsageLedger {
  readonly calibration: TokenCalibration;
  readonly #fixedFactor: number | undefined;
  readonly #raw = new Map<string, TokenCounter>();
  readonly #calibrated = new Map<string, TokenCounter>();
  #pending: PendingWindow | undefined;
  #last: UsageRecord | undefined;

  constructor(calibration: TokenCalibration, fixedFactor: number | undefined) {
    this.calibration = calibration;
    this.#fixedFactor = fixedFactor;
  }

  /** The counter a window of `model` is cut with: `base` unless the calibration moved the factor. */
  counterFor(model: string, base: TokenCounter): TokenCounter {
    if (this.#fixedFactor !== undefined) return base;
    const factor = this.calibration.factorFor(model, base.safetyFactor);
    if (factor === base.safetyFactor) return base;
    const key = `${model}\u0000${factor}`;
    let counter = this.#calibrated.get(key);
    if (!counter) {
      // Counters share their per-message caches: a new factor rescales cached counts, no re-tokenizing.
      if (this.#calibrated.size >= 16) this.#calibrated.clear();
      counter = getTokenCounter(model, { safetyFactor: factor });
      this.#calibrated.set(key, counter);
    }
    return counter;
  }

  /** Remember the request just produced, cut with `counter`; it is counted when its bill arrives. */
  expect(model: string, counter: TokenCounter, messages: readonly Message[], tools: readonly ToolDefinition[] | undefined, defaultFactor: number): void {
    this.#pending = { model, counter, messages, tools, defaultFactor };
  }

  /** The factor-1 counter of `model` (shares the caches of the model's other counters). */
  rawCounter(model: string): TokenCounter {
    let counter = this.#raw.get(model);
    if (!counter) {
      counter = getTokenCounter(model, { safetyFactor: 1 });
      this.#raw.set(model, counter);
    }
    return counter;
  }

  /** The request awaiting its bill, counted (the counts are computed once, on first use). */
  get pending(): PendingRequest | undefined {
    const window = this.#pending;
    if (window === undefined) return undefined;
    window.counts ??= {
      model: window.model,
      counted: window.counter.countRequest(window.messages, window.tools),
      raw: this.rawCounter(window.model).countRequest(window.messages, window.tools),
      factor: window.counter.safetyFactor,
      defaultFactor: window.defaultFactor,
    };
    return window.counts;
  }

  /** The model of the request awaiting its bill. */
  get pendingModel(): string | undefined {
    return this.#pending?.model;
  }

  /** The last settled bill. */
  get last(): UsageRecord | undefined {
    return this.#last;
  }

  /**
   * Settles the pending request with `usage`. Undefined (and nothing recorded) when no request is
   * pending, the usage has no inputTokens, or `model` resolves to another model than the request's.
   */
  settle(usage: BilledUsage | undefined, model?: string): UsageRecord | undefined {
    if (!this.#pending || usage === undefined || usage === null || usage.inputTokens === undefined) return undefined;
    if (model !== undefined && modelKey(model) !== modelKey(this.#pending.model)) return undefined;
    if (usage.compaction !== undefined) {
      this.#pending = undefined;
      return undefined;
    }
    const pending = this.pending!;
    this.#pending = undefined;
    // Context editing (Anthropic) cleared part of the window before billing it: that part was sent and counted.
    const billed = typeof usage.clearedInputTokens === "number" && typeof usage.inputTokens === "number" ? usage.inputTokens + usage.clearedInputTokens : usage.inputTokens;
    const outcome = this.calibration.record({ model: pending.model, counted: pending.raw, billed }, pending.defaultFactor);
    const fixed = this.#fixedFactor;
    const record: UsageRecord = {
      ...outcome,
      ...(fixed === undefined ? {} : { previousFactor: pending.factor, factor: pending.factor }),
      counted: pending.counted,
      raw: pending.raw,
      billed,
      ...(typeof billed === "number" && Number.isFinite(billed) ? { drift: billed - pending.counted } : {}),
      applied: fixed === undefined,
    };
    this.#last = record;
    return record;
  }
}
