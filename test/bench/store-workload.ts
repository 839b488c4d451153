/** Workloads shared by the store scenarios (stores-postgres, stores-redis). */
import type { Message } from "../../contracts/generated/message.js";
import type { HistoryStore } from "../../contracts/history-store.js";
import { distribution } from "./measure.js";

/** Chat-sized messages (~300 B of JSON: a sentence or three, id, timestamp), user and assistant in turn. */
export function chatMessages(n: number): Message[] {
  const words = "the store keeps every turn of the conversation safely and the window fits the model budget without dropping what matters".split(" ");
  return Array.from({ length: n }, (_, i) => {
    const length = 20 + ((i * 7919) % 30);
    const content = Array.from({ length }, (_, k) => words[(i + k * 3) % words.length]).join(" ");
    return { role: i % 2 ? "assistant" : "user", content, metadata: { id: `c${i}`, timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString() } } satisfies Message;
  });
}

/** `perSession` awaited appends on each session, all sessions at once: latency per call and total appends/s. */
export async function timedAppends(store: Pick<HistoryStore, "append">, sessions: string[], perSession: number, history: Message[]) {
  const samples: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    sessions.map(async (sessionId, w) => {
      for (let i = 0; i < perSession; i++) {
        const message = history[(w * perSession + i) % history.length]!;
        const s0 = performance.now();
        await store.append(sessionId, message);
        samples.push(performance.now() - s0);
      }
    }),
  );
  const elapsed = performance.now() - t0;
  return { latency: distribution(samples), rate: samples.length / (elapsed / 1000) };
}
