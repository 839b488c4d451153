/**
 * Number of fast-check cases per property: `AMPLIFIER_PROPERTY_RUNS` when set (CI sets 10000,
 * `npm run test:deep` more), else the given default, so local runs stay quick.
 */
export function propertyRuns(fallback: number): number {
  const raw = process.env.AMPLIFIER_PROPERTY_RUNS;
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`AMPLIFIER_PROPERTY_RUNS must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return n;
}
