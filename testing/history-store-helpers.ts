import { expect } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";

/** What a factory hands the suite: a store over EMPTY storage (a fresh folder, schema, key prefix). */
export interface StoreUnderTest {
  store: HistoryStore;
  /**
   * Durable stores: a new store instance over the same storage. The suite closes the previous
   * instance first (single-writer stores may lock sessions). Leave it out for memory-only stores.
   */
  reopen?(): Promise<HistoryStore>;
  /** Removes the storage (the suite has closed every store it got by then). */
  cleanup?(): Promise<void>;
  /** Where the storage is (a schema, a key prefix …), for `processes.spawnWriter`; opaque to the suite. */
  storage?: unknown;
}

/** What each part of the HistoryStore suite gets: a store over empty storage, closed after the test. */
export interface StoreHarness {
  make(): Promise<HistoryStore>;
  /** For tests that reopen storage: the raw factory result, tracked for cleanup like make()'s. */
  makeUnderTest(): Promise<StoreUnderTest>;
  /** Closes this store after the test too. */
  track(store: HistoryStore): void;
}

export interface StoreSuiteSizes {
  writers: number;
  appendsPerWriter: number;
  largeBytes: number;
}

export type Failure = { code?: string; message: string };

export const failure = (p: Promise<unknown>): Promise<Failure | undefined> =>
  p.then(() => undefined, (e: unknown) => e as Failure);

export async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const error = await failure(p);
  expect(error, `expected the call to reject with ${code}`).toBeDefined();
  expect(error?.code, error?.message).toBe(code);
}

export const user = (text: string, metadata: Record<string, unknown> = {}): Message => ({
  role: "user",
  content: text,
  metadata: { id: `id-${text}`, timestamp: "2025-01-01T00:00:00.000Z", ...metadata },
});

export const numbered = (n: number, prefix = "m"): Message[] => Array.from({ length: n }, (_, i) => user(`${prefix}${i}`));
export const texts = (messages: Message[]) => messages.map((m) => m.content);
