/**
 * Counting off the hot path, its idle half. A window whose newest messages the assembler priced by
 * a proven upper bound instead of counting them (window-assembler.ts, issue 31 item 3) leaves them
 * uncounted; here they are counted (WindowAssembler.settle) in the event loop's idle turns, so the
 * next window finds them counted and a turn tokenizes nothing but, at most, its own new message.
 *
 * | rule            | semantics                                                                 |
 * |-----------------|---------------------------------------------------------------------------|
 * | what            | the latest task only (settle the assemblers the last window used); a newer window replaces it |
 * | when            | a setImmediate after the window, never while a call of the manager is in flight (`busy()`: a turn, a rewrite — not even inside its awaited store write); resumed when the last call ends |
 * | owned           | `close()` cancels the scheduled task and schedules nothing again: a closed session leaves no work behind |
 * | not run         | the next window counts what it needs itself (a bound that does not decide is counted): same windows either way |
 */
import { CallGate } from "./call-gate.js";

export class IdleCount {
  readonly #calls = new CallGate(() => this.#kick());
  #closed = false;
  #task: (() => void) | undefined;
  #scheduled: NodeJS.Immediate | undefined;

  /** A call of the owner starts: nothing runs until the returned function is called (calls may overlap). */
  busy(): () => void {
    return this.#calls.enter();
  }

  /** Runs `task` in idle time, instead of any task not run yet. */
  after(task: () => void): void {
    if (this.#closed) return;
    this.#task = task;
    this.#kick();
  }

  /** Whether a task waits (tests). */
  get pending(): boolean {
    return this.#task !== undefined;
  }

  close(): void {
    this.#closed = true;
    this.#task = undefined;
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
  }

  #kick(): void {
    if (this.#closed || this.#calls.busy || this.#task === undefined) return;
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      if (this.#closed || this.#calls.busy) return;
      const task = this.#task;
      this.#task = undefined;
      task?.();
    });
  }
}
