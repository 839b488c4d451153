/**
 * A writer that appends numbered messages (`metadata.seq` 0, 1, 2, …) to one session as fast as
 * the store acknowledges them, for fault tests that break the server in the middle of a stream.
 * It stops at the first rejected append (kept in `failures`) or when `stop()` is called.
 */
import type { HistoryStore } from "../../contracts/history-store.js";

export interface AppendStream {
  /** Sequence numbers whose append resolved, in order. */
  readonly acked: number[];
  readonly failures: unknown[];
  /** Resolves once `n` appends are acknowledged or one failed. */
  until(n: number): Promise<void>;
  /** Stops after the append in flight and waits for it. */
  stop(): Promise<void>;
}

export function appendStream(store: Pick<HistoryStore, "append">, sessionId: string): AppendStream {
  const acked: number[] = [];
  const failures: unknown[] = [];
  let stopped = false;
  const writer = (async () => {
    for (let seq = 0; !stopped; seq++) {
      try {
        await store.append(sessionId, { role: "user", content: `m${seq}`, metadata: { id: `m${seq}`, seq } });
        acked.push(seq);
      } catch (error) {
        failures.push(error);
        return;
      }
    }
  })();
  return {
    acked,
    failures,
    async until(n) {
      while (acked.length < n && failures.length === 0) await new Promise((r) => setTimeout(r, 5));
    },
    async stop() {
      stopped = true;
      await writer;
    },
  };
}
