/**
 * What the main thread and the body loader (pg-body-loader.ts, a worker thread) share: the
 * worker's input, the messages it posts and the slots of the Int32Array over their shared memory.
 */
import type { MessagePort } from "node:worker_threads";

export interface LoaderInput {
  url: string;
  snapshot: string;
  /** SELECT of one page's texts in seq order; parameters $1 agent, $2 session, $3 first seq, $4 last seq. */
  sql: string;
  agent: string;
  sessionId: string;
  /** Pages as [first seq, last seq] pairs, flattened. */
  pages: number[];
  shared: SharedArrayBuffer;
  port: MessagePort;
}

export type LoaderMessage =
  | { type: "imported" }
  | { type: "page"; index: number; text: ArrayBuffer; offsets: Int32Array }
  | { type: "failed"; message: string };

export const LOADER_SLOTS = { delivered: 0, requested: 1, state: 2 } as const;
export const LOADER_STATE = { running: 0, done: 1, failed: 2 } as const;
