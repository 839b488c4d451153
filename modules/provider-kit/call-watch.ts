import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Where a call stood when its time ran out (`details.phase` of PROVIDER/TIMEOUT):
 *
 * | phase         | the limit                     | who watches it                                  |
 * |---------------|-------------------------------|-------------------------------------------------|
 * | `headers`     | timeoutMs from the request    | the SDK's own timer (it retries, maxRetries)    |
 * | `body`        | timeoutMs from the request    | this watch: the JSON body's last byte           |
 * | `stream`      | timeoutMs from the request    | this watch: the event stream's last byte        |
 * | `stream-idle` | streamIdleTimeoutMs of silence| this watch: the gap between two pieces of a stream |
 *
 * The official SDKs clear their timer once the headers are in, so without this watch a server that
 * sends headers and then stalls keeps complete() pending for ever.
 */
export type TimeoutPhase = "headers" | "body" | "stream" | "stream-idle";

export interface CallTimeouts {
  /** One attempt, from sending the request to the answer's last byte. */
  timeoutMs: number;
  /** The longest silence between two pieces of an event stream. */
  streamIdleTimeoutMs: number;
}

/** What the watch saw of the last attempt's answer. */
export interface AnswerSeen {
  status: number;
  contentType: string;
  eventStream: boolean;
  requestId?: string;
}

export interface TimedOut {
  phase: TimeoutPhase;
  elapsedMs: number;
  limitMs: number;
}

/** The first characters of an answer's body, kept for INVALID_RESPONSE's `given`. */
const BODY_START_CHARS = 512;

const currentWatch = new AsyncLocalStorage<CallWatch>();

/**
 * The fetch a provider module gives its SDK client (`new OpenAI({ fetch: watchedFetch })`): inside
 * a call of runProviderCall it goes through that call's CallWatch, outside one it is plain fetch.
 * The call is found through AsyncLocalStorage because an SDK client is shared by every call while
 * the watch belongs to one.
 */
export const watchedFetch: typeof fetch = (input, init) => {
  const watch = currentWatch.getStore();
  return watch === undefined ? fetch(input, init) : watch.fetch(input, init);
};

/**
 * The clock and the eyes of one complete() call: it sees each attempt's request go out and its
 * answer's bytes come in (through watchedFetch), enforces timeoutMs over the whole attempt and the
 * idle limit between stream pieces, and aborts the underlying request when one runs out, so no
 * socket stays open. runProviderCall reads what it saw to type a failure.
 */
export class CallWatch {
  readonly #controller = new AbortController();
  /** Aborted on a timeout or by the caller's signal; the SDK call and the fetch both listen. */
  readonly signal: AbortSignal = this.#controller.signal;
  readonly #timeouts: CallTimeouts;
  readonly #unlinkCaller: () => void;
  #attemptStarted = performance.now();
  #phase: "headers" | "body" | "stream" | "done" = "headers";
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #timedOut: TimedOut | undefined;
  #answer: AnswerSeen | undefined;
  #bodyFailure: unknown;
  #bodyStart = "";

  constructor(timeouts: CallTimeouts, callerSignal?: AbortSignal) {
    this.#timeouts = timeouts;
    const onCallerAbort = () => this.#controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    this.#unlinkCaller = () => callerSignal?.removeEventListener("abort", onCallerAbort);
  }

  /** Runs the call so that watchedFetch finds this watch. */
  run<T>(send: () => Promise<T>): Promise<T> {
    return currentWatch.run(this, send);
  }

  get timedOut(): TimedOut | undefined {
    return this.#timedOut;
  }

  /** The last attempt's status and content type, once its headers came. */
  get answer(): AnswerSeen | undefined {
    return this.#answer;
  }

  /** The error that broke off the last answer's body (a reset, a cut connection), if one did. */
  get bodyFailure(): unknown {
    return this.#bodyFailure;
  }

  get bodyStart(): string {
    return this.#bodyStart;
  }

  /** Milliseconds since the last attempt's request went out. */
  get elapsedMs(): number {
    return Math.round(performance.now() - this.#attemptStarted);
  }

  /** Stops the clocks; an answer body nobody read to its end is cancelled (its socket closes). */
  finish(): void {
    this.#clearTimers();
    this.#unlinkCaller();
    if (this.#phase !== "done") void this.#reader?.cancel().catch(() => undefined);
    this.#phase = "done";
  }

  async fetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
    // A new attempt (the SDK retries): its own clock, its own answer.
    this.#clearTimers();
    this.#attemptStarted = performance.now();
    this.#phase = "headers";
    this.#answer = undefined;
    this.#bodyFailure = undefined;
    this.#bodyStart = "";
    const signal = init?.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal;
    const response = await fetch(input, { ...init, signal });
    const contentType = response.headers.get("content-type") ?? "";
    const requestId = response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? undefined;
    const eventStream = contentType.includes("text/event-stream");
    this.#answer = { status: response.status, contentType, eventStream, ...(requestId ? { requestId } : {}) };
    if (response.body === null) {
      this.#phase = "done";
      return response;
    }
    this.#phase = eventStream ? "stream" : "body";
    const remaining = Math.max(0, this.#timeouts.timeoutMs - (performance.now() - this.#attemptStarted));
    this.#deadline = setTimeout(() => this.#expire(eventStream ? "stream" : "body", this.#timeouts.timeoutMs), remaining);
    if (eventStream) this.#armIdle();
    const watched = new Response(this.#watchBody(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
    // A constructed Response has no url; the SDKs' logs name it.
    Object.defineProperty(watched, "url", { value: response.url });
    return watched;
  }

  /** The answer's bytes passed on as they come: each piece resets the idle clock; the end stops both clocks. */
  #watchBody(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    this.#reader = reader;
    const decoder = new TextDecoder();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        let piece: Awaited<ReturnType<typeof reader.read>>;
        try {
          piece = await reader.read();
        } catch (error) {
          this.#clearTimers();
          if (this.#timedOut === undefined && !this.signal.aborted) this.#bodyFailure = error;
          controller.error(error);
          return;
        }
        // A read the timeout cut short ends in its error, never as a clean (truncated) end.
        if (this.#timedOut !== undefined) {
          controller.error(this.signal.reason);
          return;
        }
        if (piece.done) {
          this.#clearTimers();
          this.#phase = "done";
          controller.close();
          return;
        }
        if (this.#bodyStart.length < BODY_START_CHARS) this.#bodyStart = (this.#bodyStart + decoder.decode(piece.value, { stream: true })).slice(0, BODY_START_CHARS);
        if (this.#idle !== undefined) this.#armIdle();
        controller.enqueue(piece.value);
      },
      cancel: (reason) => {
        this.#clearTimers();
        this.#phase = "done";
        return reader.cancel(reason);
      },
    });
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    const limit = this.#timeouts.streamIdleTimeoutMs;
    this.#idle = setTimeout(() => this.#expire("stream-idle", limit), limit);
  }

  #expire(phase: TimeoutPhase, limitMs: number): void {
    this.#clearTimers();
    this.#timedOut = { phase, elapsedMs: this.elapsedMs, limitMs };
    const reason = new Error(`no ${phase === "stream-idle" ? "stream piece" : `end of the ${phase}`} within ${limitMs} ms`);
    reason.name = "TimeoutError";
    this.#controller.abort(reason);
    void this.#reader?.cancel(reason).catch(() => undefined);
  }

  #clearTimers(): void {
    clearTimeout(this.#deadline);
    clearTimeout(this.#idle);
    this.#deadline = undefined;
    this.#idle = undefined;
  }
}
