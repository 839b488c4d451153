import { performance } from "node:perf_hooks";

/**
 * Cuts a long synchronous loop into slices of at most `sliceMs` of work, giving the event loop a
 * turn (setImmediate) between them: a reader parsing a large session in a server's thread lets the
 * other requests through every few milliseconds instead of holding them for the whole parse.
 *
 *   const slice = timeSlice(4);
 *   for (const item of items) { work(item); if (slice.due()) await slice.yield(); }
 *
 * `due()` looks at the clock every `every` calls only (the loop's own cost stays the cost).
 */
export interface TimeSlice {
  due(): boolean;
  yield(): Promise<void>;
  /** How many times the loop gave the event loop a turn. */
  readonly yields: number;
}

export function timeSlice(sliceMs: number, every = 32): TimeSlice {
  let started = performance.now();
  let calls = 0;
  let yields = 0;
  return {
    due() {
      if (++calls % every !== 0) return false;
      return performance.now() - started >= sliceMs;
    },
    async yield() {
      yields++;
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    },
    get yields() {
      return yields;
    },
  };
}
