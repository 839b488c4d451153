/**
 * The owner's calls in flight (a turn's addMessage, its window, a rewrite; they may overlap): idle
 * work — the packing (cold-history.ts), the idle count (idle-count.ts) — runs only while there is
 * none. `enter()` marks a call's start and returns its end (calling it twice counts once); when
 * the last call in flight ends, `onIdle` runs.
 */
export class CallGate {
  readonly #onIdle: () => void;
  #inFlight = 0;

  constructor(onIdle: () => void) {
    this.#onIdle = onIdle;
  }

  /** Whether a call is in flight. */
  get busy(): boolean {
    return this.#inFlight > 0;
  }

  enter(): () => void {
    this.#inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.#inFlight === 0) this.#onIdle();
    };
  }
}
