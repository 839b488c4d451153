/**
 * analyzeSession off the server's thread: each analysis runs in a worker thread
 * (session-analysis-worker.ts), so a server that analyses a long session (the Inspector) keeps
 * answering — the replay's turns, the tokenizer's loading and the garbage they leave are the
 * thread's. What stays on the server's thread is copying: the session to the thread in slices of
 * MESSAGES_PER_SLICE messages, the result back in parts of about 64 KB, one per turn of its event loop.
 *
 * | case | what happens |
 * |---|---|
 * | an analysis asked for, a thread idle | it runs there (the thread's tokenizers are already loaded) |
 * | none idle, fewer than `threads` running | a new thread starts |
 * | `threads` busy | the analysis waits its turn (first asked, first run) |
 * | its signal aborts | waiting: it leaves the queue; running: its thread is terminated; either way it rejects with the signal's reason |
 * | the analysis throws | the same error, code and details (an AmplifierError crosses threads as one) |
 * | the thread dies (out of memory, an uncaught error, exits) | `INSPECTOR/ANALYSIS_FAILED`, with why |
 * | a thread idle for `idleMs` | it ends (a later analysis starts another) |
 *
 * A running thread keeps the process alive until its analysis is done, an idle one does not.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Message } from "@amplifier-ts/contracts";
import { AmplifierError, createError } from "@amplifier-ts/contracts";
import { inspectorErrors, type AnalyzedTurn } from "@amplifier-ts/inspector";
import type { AnalysisPart, FromAnalysisThread, ThreadAnalysisOptions, ThreadError, ToAnalysisThread } from "./session-analysis-protocol.js";
import type { ReplayTurn } from "./run-replay.js";
import type { analyzeSession, AnalyzeSessionOptions } from "./session-analysis.js";

export type AnalyzeSessionResult = Awaited<ReturnType<typeof analyzeSession>>;

export interface AnalysisThreadsOptions {
  /** Analyses running at once, each in its own thread (default: one less than the CPUs, 1 to 2). */
  threads?: number;
  /** An idle thread ends after this many ms (default 30,000). */
  idleMs?: number;
  /** The most old-generation heap a thread may use, in MB: past it the analysis fails with ANALYSIS_FAILED, the server lives on (default: V8's). */
  maxHeapMb?: number;
}

/** Messages per slice copied to the thread: a slice's copy is short, a turn of the event loop comes between two. */
const MESSAGES_PER_SLICE = 64;
const DEFAULT_IDLE_MS = 30_000;

const HERE = import.meta.url;
/** From dist/ the thread's file is a sibling; from the TypeScript source (tests), the built one in dist/. */
const WORKER_FILE = fileURLToPath(new URL(HERE.endsWith(".ts") ? "../../dist/replay/session-analysis-worker.js" : "./session-analysis-worker.js", HERE));

interface Job {
  messages: readonly Message[];
  options: AnalyzeSessionOptions;
  resolve(result: AnalyzeSessionResult): void;
  reject(error: unknown): void;
  /** Removes the job's abort listener. */
  release(): void;
  /** Set while it runs: stops its thread. */
  stop?: (reason: unknown) => void;
}

interface Thread {
  worker: Worker;
  /** The job it runs; undefined when idle. */
  job: Job | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set once it errored or exited: it takes no more jobs. */
  dead: boolean;
  /** What the thread says about its job (set by #run). */
  handle: ((message: FromAnalysisThread) => void) | undefined;
}

/** A few analysis threads and the analyses waiting for one (see the table above). */
export class AnalysisThreads {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #maxHeapMb: number | undefined;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #closed = false;

  constructor(options: AnalysisThreadsOptions = {}) {
    const threads = options.threads ?? Math.max(1, Math.min(2, availableParallelism() - 1));
    if (!Number.isInteger(threads) || threads < 1) throw createError("INVALID_ARGUMENT", "AnalysisThreads needs at least one thread", { path: "threads", expected: "a whole number ≥ 1", given: options.threads });
    const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    if (!Number.isFinite(idleMs) || idleMs < 0) throw createError("INVALID_ARGUMENT", "AnalysisThreads: idleMs is a duration", { path: "idleMs", expected: "a number of ms ≥ 0", given: options.idleMs });
    if (options.maxHeapMb !== undefined && !(Number.isFinite(options.maxHeapMb) && options.maxHeapMb > 0)) {
      throw createError("INVALID_ARGUMENT", "AnalysisThreads: maxHeapMb is a size in MB", { path: "maxHeapMb", expected: "a number > 0", given: options.maxHeapMb });
    }
    this.#max = threads;
    this.#idleMs = idleMs;
    this.#maxHeapMb = options.maxHeapMb;
  }

  /** What runs now: threads started (busy or idle), busy ones, analyses waiting. */
  get stats(): { threads: number; busy: number; queued: number } {
    let busy = 0;
    for (const t of this.#threads) if (t.job !== undefined) busy++;
    return { threads: this.#threads.size, busy, queued: this.#queue.length };
  }

  /** analyzeSession(messages, options) in an analysis thread: the same result and errors (the replay's turns without `window`). */
  analyze(messages: readonly Message[], options: AnalyzeSessionOptions = {}): Promise<AnalyzeSessionResult> {
    if (this.#closed) return Promise.reject(inspectorErrors.create("ANALYSIS_FAILED", "the analysis threads are closed", { module: "replay" }));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<AnalyzeSessionResult>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#queue.indexOf(job);
        if (at >= 0) {
          this.#queue.splice(at, 1);
          job.release();
          reject(signal!.reason);
        } else job.stop?.(signal!.reason);
      };
      const job: Job = { messages, options, resolve, reject, release: () => signal?.removeEventListener("abort", onAbort) };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Ends every thread; analyses running or waiting reject with ANALYSIS_FAILED. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = inspectorErrors.create("ANALYSIS_FAILED", "the analysis threads were closed before it finished", { module: "replay" });
    for (const job of this.#queue.splice(0)) {
      job.release();
      job.reject(closed);
    }
    await Promise.all([...this.#threads].map((t) => {
      t.job?.stop?.(closed);
      return t.worker.terminate();
    }));
    this.#threads.clear();
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let thread: Thread | undefined;
      for (const t of this.#threads) if (t.job === undefined && !t.dead) thread = t;
      if (thread === undefined && this.#threads.size < this.#max) {
        const started = this.#start();
        if (started instanceof AmplifierError) {
          // The thread cannot start at all (no built worker file): every waiting analysis fails alike.
          for (const job of this.#queue.splice(0)) {
            job.release();
            job.reject(started);
          }
          return;
        }
        thread = started;
      }
      if (thread === undefined) return;
      this.#run(thread, this.#queue.shift()!);
    }
  }

  #start(): Thread | AmplifierError {
    if (!existsSync(WORKER_FILE)) {
      return inspectorErrors.create("ANALYSIS_FAILED", `the analysis thread's file ${WORKER_FILE} is missing`, { module: "replay", file: WORKER_FILE, hint: "run `npm run build`: the analysis thread runs the built dist/" });
    }
    const worker = new Worker(WORKER_FILE, {
      // The thread loads the built packages (never their TypeScript source) and its own file (not `-e` text).
      execArgv: workerExecArgv(process.execArgv),
      ...(this.#maxHeapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb } }),
    });
    const thread: Thread = { worker, job: undefined, idleTimer: undefined, dead: false, handle: undefined };
    const died = (why: string, cause?: unknown) => {
      if (thread.dead) return;
      thread.dead = true;
      clearTimeout(thread.idleTimer);
      this.#threads.delete(thread);
      const job = thread.job;
      thread.job = undefined;
      thread.handle = undefined;
      job?.stop?.(inspectorErrors.create("ANALYSIS_FAILED", why, { module: "replay", ...(cause === undefined ? {} : { cause }) }));
      this.#dispatch();
    };
    worker.on("error", (error) => died(`its thread failed: ${error.message}`, error));
    worker.on("exit", (code) => died(`its thread exited (code ${code}) before it answered`));
    worker.on("message", (message: FromAnalysisThread) => thread.handle?.(message));
    this.#threads.add(thread);
    return thread;
  }

  #run(thread: Thread, job: Job): void {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    thread.job = job;
    thread.worker.ref();
    const parts: AnalysisPart[] = [];
    let settled = false;
    const finish = (outcome: { result: AnalyzeSessionResult } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      job.release();
      if ("result" in outcome) job.resolve(outcome.result);
      else job.reject(outcome.error);
    };
    job.stop = (reason) => {
      // Aborted, closed or dead: the thread may be mid-analysis, so it goes (a later analysis starts another).
      finish({ error: reason });
      if (thread.job === job) {
        thread.job = undefined;
        thread.handle = undefined;
        thread.dead = true;
        clearTimeout(thread.idleTimer);
        this.#threads.delete(thread);
        void thread.worker.terminate();
        this.#dispatch();
      }
    };
    thread.handle = (message) => {
      if (message.type === "progress") job.options.onProgress?.(message.turnsDone, message.turns);
      else if (message.type === "failed") {
        finish({ error: fromThread(message.error) });
        this.#idle(thread);
      } else {
        parts.push(message.part);
        if (message.part.done === undefined) return thread.worker.postMessage({ type: "more" } satisfies ToAnalysisThread);
        finish({ result: assemble(parts) });
        this.#idle(thread);
      }
    };
    void this.#send(thread, job).catch((error: unknown) => job.stop?.(inspectorErrors.create("ANALYSIS_FAILED", `the session could not be copied to its thread: ${(error as Error).message}`, { module: "replay", cause: error })));
  }

  /** The options, then the session in slices with a turn of the event loop between two, then `run`. */
  async #send(thread: Thread, job: Job): Promise<void> {
    const { onProgress: _onProgress, signal: _signal, ...options } = job.options;
    const post = (message: ToAnalysisThread) => thread.worker.postMessage(message);
    post({ type: "start", options: options satisfies ThreadAnalysisOptions });
    for (let i = 0; i < job.messages.length; i += MESSAGES_PER_SLICE) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (thread.job !== job) return;
      post({ type: "messages", messages: job.messages.slice(i, i + MESSAGES_PER_SLICE) as Message[] });
    }
    post({ type: "run" });
  }

  #idle(thread: Thread): void {
    thread.job = undefined;
    thread.handle = undefined;
    if (this.#closed || thread.dead) return;
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => {
      thread.dead = true;
      this.#threads.delete(thread);
      void thread.worker.terminate();
    }, this.#idleMs).unref();
    this.#dispatch();
  }
}

let shared: AnalysisThreads | undefined;

/**
 * analyzeSession(messages, options) in a worker thread — the same result (the replay's turns
 * without `window`: each turn's explanation is in the analysis), progress and errors; its signal
 * terminates the thread. Runs on a pool shared by the process (AnalysisThreads' defaults); a
 * server that wants its own (and to end its threads when it stops) makes an AnalysisThreads.
 */
export function analyzeSessionInWorker(messages: readonly Message[], options: AnalyzeSessionOptions = {}): Promise<AnalyzeSessionResult> {
  shared ??= new AnalysisThreads();
  return shared.analyze(messages, options);
}

// ---- private helpers ----

function assemble(parts: AnalysisPart[]): AnalyzeSessionResult {
  const done = parts.at(-1)!.done!;
  const turns: AnalyzedTurn[] = [];
  const replayTurns: ReplayTurn[] = [];
  for (const part of parts) {
    for (const t of part.turns) turns.push(t);
    for (const t of part.replayTurns) replayTurns.push(t);
  }
  return { analysis: { ...done.analysis, turns }, tokens: parts[0]!.tokens ?? [], replay: { ...done.replay, turns: replayTurns } };
}

/** The thread's error on this side: an AmplifierError with its code, message and details; anything else ANALYSIS_FAILED. */
function fromThread(error: ThreadError): AmplifierError {
  if (error.code !== undefined) {
    const out = new AmplifierError(error.code as ConstructorParameters<typeof AmplifierError>[0], error.message);
    Object.assign(out.details, error.details);
    return out;
  }
  return inspectorErrors.create("ANALYSIS_FAILED", `the analysis threw ${error.name}: ${error.message}`, { module: "replay" });
}

/**
 * The process's execArgv as the thread can take it: without the "source" condition (`--conditions=source`,
 * `-C source`: the tests' TypeScript sources), and without what names the main script's input
 * (`--input-type`, `-e`/`--eval`/`-p`/`--print` and their text: a thread refuses them, ERR_INPUT_TYPE_NOT_ALLOWED).
 */
function workerExecArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--conditions=source" || arg === "-C=source" || arg.startsWith("--input-type=")) continue;
    if ((arg === "--conditions" || arg === "-C") && argv[i + 1] === "source") {
      i++;
      continue;
    }
    if (arg === "--input-type" || arg === "-e" || arg === "--eval" || arg === "-p" || arg === "--print") {
      i++;
      continue;
    }
    if (arg.startsWith("--eval=") || arg.startsWith("--print=")) continue;
    out.push(arg);
  }
  return out;
}
