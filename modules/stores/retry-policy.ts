/** Backoff for transient failures of a store driver: tries in all (the first included, ≥ 1), jittered exponential delays. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}
