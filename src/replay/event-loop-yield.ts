/**
 * How a long computation on the server's thread (a replay, an analysis) leaves room for
 * everything else the process serves: `yieldNow()` waits one turn of the event loop
 * (setImmediate: after pending I/O callbacks), `yieldSometimes()` only when `sliceMs` passed since
 * the last yield. A computation that calls one of them between its steps blocks the loop for at
 * most one step (or one slice).
 */
export interface EventLoopYielder {
  yieldNow(): Promise<void>;
  yieldSometimes(): Promise<void>;
}

/** A slice the loop is left blocked at most, in ms, between steps that are themselves short. */
export const DEFAULT_SLICE_MS = 4;

export function eventLoopYielder(sliceMs = DEFAULT_SLICE_MS): EventLoopYielder {
  let last = performance.now();
  const yieldNow = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    last = performance.now();
  };
  return {
    yieldNow,
    yieldSometimes: () => (performance.now() - last >= sliceMs ? yieldNow() : Promise.resolve()),
  };
}
