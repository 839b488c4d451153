/**
 * Which PostgreSQL failures are worth trying again, and how long to wait in between.
 *
 * | failure | transient? |
 * |---|---|
 * | socket errors (ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, EHOSTUNREACH …), "Connection terminated" | yes: the server is restarting or the network blinked |
 * | SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many connections) | yes |
 * | 40001 serialization failure, 40P01 deadlock | yes: the transaction can simply run again |
 * | anything else (syntax, constraint, bad data) | no: retrying gives the same answer |
 */
/** Backoff for transient failures: tries in all (the first included, ≥ 1), jittered exponential delays. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 50, maxDelayMs: 2_000 };

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "40001", "40P01"]);

export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith("08")) return true;
  }
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|connection error|Client was closed|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)/i.test(message);
}

/** Exponential backoff with full jitter, capped. `attempt` counts from 1 (the first retry). */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * Runs `task` until it succeeds, fails for good, or `attempts` are used up — or, with `deadline`
 * (a Date.now() value), until the next try would start after it: the last failure is thrown then.
 */
export async function withRetry<T>(policy: RetryPolicy, task: (attempt: number) => Promise<T>, deadline = Infinity): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !isTransient(error)) throw error;
      const delay = backoffDelay(policy, attempt);
      if (Date.now() + delay >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
