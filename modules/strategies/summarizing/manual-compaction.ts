/**
 * The manual compaction a summarizing strategy owes (the context manager's `compact({ focus })`,
 * issue 29 §1): at most one request waits for the strategy's next run; a later request supersedes
 * it, and a request the manager's window did not reach is withdrawn with its reason. Shared by
 * `summarizing` and `summarization`.
 */
import type { CompactOptions, CompactResult } from "@amplifier-ts/contracts";

export interface ManualRequest {
  readonly focus: string | undefined;
  resolve(result: CompactResult): void;
}

export class ManualCompaction {
  #request: ManualRequest | undefined;

  constructor(readonly strategy: string) {}

  /** The request the next run serves, if any (not taken). */
  get pending(): ManualRequest | undefined {
    return this.#request;
  }

  /** Takes the waiting request: the run about to happen serves it. */
  take(): ManualRequest | undefined {
    const request = this.#request;
    this.#request = undefined;
    return request;
  }

  /** Withdraws the waiting request: it resolves as not compacted, with `reason`. */
  cancel(reason: string): void {
    this.take()?.resolve({ compacted: false, strategy: this.strategy, summarized: 0, reason });
  }

  /** A new request; one still waiting is superseded. */
  request(options: CompactOptions = {}): Promise<CompactResult> {
    return new Promise((resolve) => {
      this.cancel("superseded by a later compact()");
      this.#request = { focus: options.focus, resolve };
    });
  }
}
