/**
 * The failure policy at the summarizer boundary: a summarizer that throws, returns no text, or
 * does not finish in time NEVER breaks the request. `summarizeSafely` turns each of those into a
 * `{ ok: false, reason }` result (the strategy then drops the old messages instead of summarising
 * them) and emits `context:summary_failed` { strategy, summarizer, reason, code } on the hook bus.
 * An abort of the REQUEST's own signal is the one exception: it is rethrown, as everywhere.
 *
 * | outcome                       | result                         | event               |
 * |-------------------------------|--------------------------------|---------------------|
 * | non-empty string              | `{ ok: true, text }`           | —                   |
 * | throws / rejects              | `{ ok: false }`, code SUMMARIZER_FAILED (or the error's own code) | context:summary_failed |
 * | empty or not a string         | `{ ok: false }`, SUMMARIZER_FAILED | context:summary_failed |
 * | no answer within `timeoutMs`  | `{ ok: false }`, SUMMARIZER_TIMEOUT; its signal is aborted | context:summary_failed |
 */
import type { Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";

export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 30_000;

export type SummaryOutcome = { ok: true; text: string } | { ok: false; reason: string; code: string };

export interface SummarizeSafelyOptions {
  previousSummary?: string;
  maxTokens: number;
  timeoutMs?: number;
  /** The request's signal: when IT aborts, the abort propagates (not a fallback). */
  signal?: AbortSignal;
  /** Where to report a failure, and as which strategy. */
  hooks?: HookBusContract;
  strategy: string;
  /** Messages that will be dropped instead (reported as `dropped`). */
  dropped?: number;
  /** What the summary should keep above all (manual compaction); handed to the summarizer. */
  focus?: string;
  /** An empty text is returned as `{ ok: true, text: "" }` (the caller's summary check rejects it) instead of failing. */
  acceptEmpty?: boolean;
  /** A background preparation's attempt (1 = first) and the retry delay after this one, reported with a failure. */
  background?: { attempt: number; retryInMs?: number };
}

/** A summarizer whose calls reject with SUMMARIZER_TIMEOUT after `timeoutMs` (and abort the call's signal). */
export function withSummarizerTimeout(summarizer: Summarizer, timeoutMs: number): Summarizer {
  return {
    name: summarizer.name,
    summarize: (messages, options) => callWithTimeout(summarizer, messages, options, timeoutMs),
  };
}

export async function summarizeSafely(summarizer: Summarizer, messages: readonly Message[], options: SummarizeSafelyOptions): Promise<SummaryOutcome> {
  const { previousSummary, maxTokens, signal, focus } = options;
  try {
    const text = await callWithTimeout(
      summarizer,
      messages,
      { maxTokens, ...(previousSummary !== undefined ? { previousSummary } : {}), ...(signal ? { signal } : {}), ...(focus !== undefined ? { focus } : {}) },
      options.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS,
    );
    if (options.acceptEmpty && (text === "" || (typeof text === "string" && text.trim() === ""))) return { ok: true, text: "" };
    if (typeof text !== "string" || text.trim() === "") {
      throw createError("SUMMARIZER_FAILED", `summarizer "${summarizer.name}" returned no summary text`, { module: summarizer.name, expected: "a non-empty string", given: text });
    }
    return { ok: true, text };
  } catch (error) {
    if (signal?.aborted) throw error;
    const code = isAmplifierError(error) ? error.code : "SUMMARIZER_FAILED";
    const reason = error instanceof Error ? error.message : String(error);
    await options.hooks?.emit("context:summary_failed", {
      strategy: options.strategy,
      summarizer: summarizer.name,
      reason,
      code,
      ...(options.dropped !== undefined ? { dropped: options.dropped } : {}),
      ...(options.background ? { background: true, attempt: options.background.attempt, ...(options.background.retryInMs !== undefined ? { retryInMs: options.background.retryInMs } : {}) } : {}),
    });
    return { ok: false, reason, code };
  }
}

async function callWithTimeout(
  summarizer: Summarizer,
  messages: readonly Message[],
  options: { previousSummary?: string; maxTokens: number; signal?: AbortSignal; focus?: string },
  timeoutMs: number,
): Promise<string> {
  options.signal?.throwIfAborted();
  if (!Number.isFinite(timeoutMs)) return summarizer.summarize(messages, options);
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // The request's abort ends the wait even when the summarizer ignores its signal.
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    timer = setTimeout(() => {
      const error = createError("SUMMARIZER_TIMEOUT", `summarizer "${summarizer.name}" took longer than ${timeoutMs} ms`, { module: summarizer.name, timeoutMs });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([Promise.resolve().then(() => summarizer.summarize(messages, { ...options, signal })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
