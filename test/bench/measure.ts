/** Small measurement helpers shared by the benchmark scenarios. */

export interface Distribution {
  n: number;
  median: number;
  p90: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..1). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    n: sorted.length,
    median: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Full collection (node --expose-gc); a no-op without it, which the report states. */
export function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  gc();
  gc();
}

export function hasGc(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === "function";
}

/** Heap used after a full collection, in bytes. */
export function heapAfterGc(): number {
  fullGc();
  return process.memoryUsage().heapUsed;
}

/** "0.123 ms", "12.3 ms", "1.23 s" — three significant figures. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (value >= 1000) return `${(value / 1000).toPrecision(3)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(3)} ms`;
}

export function bytes(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  const units = ["B", "KB", "MB", "GB"];
  let v = value;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

export function ratio(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)}×` : "n/a";
}

export function percent(value: number, digits = 1): string {
  return Number.isFinite(value) ? `${(value * 100).toFixed(digits)} %` : "n/a";
}

export function count(value: number): string {
  return value.toLocaleString("en-US");
}
