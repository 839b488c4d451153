import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { WindowAssembler, type WindowCounter, type WindowReport } from "@amplifier-ts/window";

/**
 * The window over the session's messages, kept across reads: the engine indexes each message
 * once and keeps the cut between reads (threshold → target hysteresis), so consecutive windows
 * share their prefix and a read costs O(new messages + window).
 *
 * `messages` is the session's list (item-messages.ts): it grows at the end, and only its last
 * message may be replaced (an answer extended by a later addItems); what is shared by reference
 * is not indexed again.
 */
export interface HistoryFitterOptions {
  budget: number;
  counter: WindowCounter;
  tools?: readonly ToolDefinition[] | undefined;
}

export class HistoryFitter {
  readonly #assembler = new WindowAssembler();
  readonly #options: HistoryFitterOptions;

  constructor(options: HistoryFitterOptions) {
    this.#options = options;
  }

  fit(messages: readonly Message[]): { messages: Message[]; report: WindowReport } {
    const assembler = this.#assembler;
    const shared = assembler.sharedPrefix(messages);
    if (shared < assembler.length) assembler.truncate(shared);
    for (let i = assembler.length; i < messages.length; i++) assembler.append(messages[i]!);
    const { budget, counter, tools } = this.#options;
    return assembler.assemble({ budget, counter, ...(tools?.length ? { tools } : {}) });
  }

  /** Forget everything (the session was cleared or rewritten). */
  reset(messages: readonly Message[] = []): void {
    this.#assembler.reset(messages);
  }
}
