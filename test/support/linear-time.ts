/**
 * Growth of a function's running time, as a ratio: how much longer `run(16n)` takes than `run(n)`.
 * Linear work gives about 16; quadratic about 256 — a gap wide enough that a loaded machine, which
 * measured linear regexes at up to 4.5× their expected growth, cannot close it. No absolute limit, so a slow or shared machine
 * does not fail it; each side is the fastest of several timed batches (noise only ever adds time),
 * and a batch repeats the call until it lasts long enough to measure.
 */
export function growthRatio(run: (size: number) => unknown, size: number, factor = 16): number {
  run(size);
  run(size * factor);
  const iterations = Math.max(1, Math.ceil(5 / Math.max(timeOnce(() => run(size)), 0.01)));
  const small = fastest(() => run(size), iterations);
  const large = fastest(() => run(size * factor), iterations);
  return large / small;
}

/**
 * True when `run` grows at most `bound` times for `factor` times the input (default: ≤ 64× for 16×),
 * measured up to `attempts` times: a loaded machine can spoil one measurement, a super-linear
 * function fails every one.
 */
export function growsLinearly(run: (size: number) => unknown, size: number, options: { factor?: number; bound?: number; attempts?: number } = {}): { linear: boolean; ratios: number[] } {
  const ratios: number[] = [];
  for (let attempt = 0; attempt < (options.attempts ?? 3); attempt++) {
    const ratio = growthRatio(run, size, options.factor ?? 16);
    ratios.push(Math.round(ratio * 10) / 10);
    if (ratio <= (options.bound ?? 64)) return { linear: true, ratios };
  }
  return { linear: false, ratios };
}

function fastest(run: () => unknown, iterations: number): number {
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function timeOnce(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}
