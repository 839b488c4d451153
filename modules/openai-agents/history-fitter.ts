import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { createWindowFitter, type FitReport, type WindowFitter } from "@amplifier-ts/window";

/**
 * The window over the session's messages, kept across reads: `createWindowFitter` of
 * @amplifier-ts/window (format "amplifier": the session's own conversion of its items,
 * item-messages.ts), which indexes each message once and keeps the cut between reads (threshold →
 * target hysteresis), so consecutive windows share their prefix and a read costs O(new messages +
 * window).
 *
 * `messages` is the session's list: it grows at the end, and only its last message may be replaced
 * (an answer extended by a later addItems) or removed (popItem); what is shared by reference is not
 * read again. That is what `appendOnly` needs: the fitter checks the first message and the last one
 * it read, and reads only what follows (a replaced or removed last message fails the check and the
 * list is read whole), so a read does not compare the whole history either.
 */
export interface HistoryFitterOptions {
  budget: number;
  model: string;
  tools?: readonly ToolDefinition[] | undefined;
}

export class HistoryFitter {
  readonly #fitter: WindowFitter;

  constructor(options: HistoryFitterOptions) {
    // thinking "keep": the session returns its stored items as they are (window-items.ts), older
    // answers' reasoning items included, so the window counts them. Under the engine's default
    // (drop-older) it counted older answers without their thinking while the items still carried
    // it — a window over its budget by that much. Leaving the reasoning out instead would make the
    // API refuse those answers' call items sent with their fc_ ids ("… provided without its
    // required 'reasoning' item").
    this.#fitter = createWindowFitter({ format: "amplifier", appendOnly: true, thinking: "keep", budget: options.budget, model: options.model, ...(options.tools?.length ? { tools: options.tools } : {}) });
  }

  fit(messages: readonly Message[]): readonly Message[] {
    return this.#fitter.fit(messages);
  }

  /** The same window with the report (what was kept, cut, dropped and why; O(history)). */
  explain(messages: readonly Message[]): FitReport {
    return this.#fitter.fit(messages, { report: true }).report;
  }

  /** Forget everything (the session was cleared or rewritten). */
  reset(): void {
    this.#fitter.reset();
  }
}
