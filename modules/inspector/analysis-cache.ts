import type { Message } from "@amplifier-ts/contracts";
import type { AnalysisProgress, SessionAnalysisResult, SimulationOptions } from "./inspector-data.js";

/** How an analyzer reports progress and learns that its result is no longer wanted. */
export interface AnalysisControl {
  /** Called after each replayed turn. */
  onProgress(turnsDone: number, turns: number): void;
  /** Aborted when the session changed meanwhile (a newer analysis replaces this one) or the Inspector closed. */
  signal: AbortSignal;
}

export type RunAnalysis = (messages: Message[], sessionId: string, simulation: SimulationOptions, control: AnalysisControl) => Promise<SessionAnalysisResult>;

interface Entry {
  /** The session's content the analysis is of: message count and last message id. */
  signature: string;
  count: number;
  result: Promise<SessionAnalysisResult>;
  settled: SessionAnalysisResult | undefined;
  progress: AnalysisProgress;
  controller: AbortController;
}

/** Analyses kept at most (least recently asked for is forgotten first): each holds a session's turns. */
const MAX_ENTRIES = 32;

/**
 * One analysis per key — (source, session, simulation) — and content, shared by every request that asks for
 * it while it runs, and kept until the session changes:
 *
 * | asked for | with the content … | gets |
 * |---|---|---|
 * | a session never analysed | — | a new run |
 * | a session being analysed | the same | the run under way (no second run) |
 * | a session analysed | the same | the kept result |
 * | any | changed (count or last id) | a new run; a run of the older content still under way is aborted |
 *
 * A run's progress (turns replayed) is readable while it runs (`progress`), for a page that polls.
 */
export class AnalysisCache {
  #entries = new Map<string, Entry>();

  constructor(private readonly run: RunAnalysis) {}

  /** The analysis of `messages`; `wait: false` answers at once with the progress while it runs. */
  analysis(key: string, sessionId: string, messages: Message[], simulation: SimulationOptions, wait = true): Promise<SessionAnalysisResult> {
    const entry = this.#entry(key, sessionId, messages, simulation);
    if (wait || entry.settled !== undefined) return entry.result;
    return Promise.resolve({ analysisProgress: { ...entry.progress } });
  }

  /**
   * The progress of the run under way for `key` when it is of a session of `count` messages — what a
   * page polling without waiting asks every half second: answered without reading the session.
   */
  progressOf(key: string, count: number): SessionAnalysisResult | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.settled !== undefined || entry.count !== count) return undefined;
    return { analysisProgress: { ...entry.progress } };
  }

  /** Aborts every run under way and forgets every result. */
  clear(): void {
    for (const entry of this.#entries.values()) entry.controller.abort();
    this.#entries.clear();
  }

  #entry(key: string, sessionId: string, messages: Message[], simulation: SimulationOptions): Entry {
    const signature = `${messages.length}:${messages.at(-1)?.metadata?.id ?? ""}`;
    const known = this.#entries.get(key);
    if (known !== undefined && known.signature === signature) {
      // Most recently asked for: last in the map's order.
      this.#entries.delete(key);
      this.#entries.set(key, known);
      return known;
    }
    known?.controller.abort();
    const controller = new AbortController();
    const progress: AnalysisProgress = { turnsDone: 0, turns: messages.filter((m) => m.role === "assistant").length };
    const entry: Entry = { signature, count: messages.length, settled: undefined, progress, controller, result: Promise.resolve({}) };
    entry.result = this.run(messages, sessionId, simulation, {
      signal: controller.signal,
      onProgress: (turnsDone, turns) => {
        progress.turnsDone = turnsDone;
        progress.turns = turns;
      },
    }).then(
      (result) => (entry.settled = result),
      (error: unknown) => {
        // A superseded run's failure is not kept; the next request runs the newer content.
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
        throw error;
      },
    );
    entry.result.catch(() => undefined);
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_ENTRIES) {
      // Forgotten, not aborted: requests waiting on it still get its result.
      const [oldest] = this.#entries.keys();
      this.#entries.delete(oldest!);
    }
    return entry;
  }
}
