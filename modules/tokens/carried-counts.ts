/**
 * Token counts carried from one process to the next: a resumed session need not tokenize again
 * the messages its last window showed (tokenizing a 128k window is the largest part of the first
 * window after a resume, with loading the tokenizer — which, when every count is carried over,
 * does not happen at all).
 *
 * What is carried: per built-in count cache (encoding and image pricing: `o200k_base|…`), pairs
 * of [hash of the message's count snapshot, raw count]. A count is used only for a message whose
 * snapshot — every value the count depends on (message-cache.ts) — hashes the same, so an edited
 * message is counted anew. Counts of custom tokenizers (`getTokenCounter(model, { tokenizer })`)
 * are never carried: their name does not identify them.
 *
 * | call | does |
 * |---|---|
 * | `exportTokenCounts(messages)` | the counts of those of `messages` a built-in cache has counted (read from the caches by object: no message is read) |
 * | `forgetTokenCounts(messages)` | each built-in cache drops its entries for those messages (a holder that packs messages away frees the strings the entries keep) |
 * | `importTokenCounts(data)` | takes an exported record; counts for caches not created yet wait for them; returns how many counts it took, or throws INVALID_ARGUMENT naming what is wrong |
 */
import type { Message } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import type { MessageTokenCache } from "./message-cache.js";

export interface CarriedTokenCounts {
  version: 1;
  /** Cache key → [snapshot hash, raw count] pairs. */
  caches: Record<string, [string, number][]>;
}

const caches = new Map<string, MessageTokenCache>();
const waiting = new Map<string, [string, number][]>();

/** @internal token-counter.ts: a built-in cache is created (its key: encoding and image pricing). */
export function registerCarriedCache(key: string, cache: MessageTokenCache): void {
  caches.set(key, cache);
  const pairs = waiting.get(key);
  if (pairs) {
    waiting.delete(key);
    cache.carry(pairs);
  }
}

export function exportTokenCounts(messages: readonly Message[]): CarriedTokenCounts {
  const out: CarriedTokenCounts = { version: 1, caches: {} };
  for (const [key, cache] of caches) {
    const pairs = cache.carriedOf(messages);
    if (pairs.length > 0) out.caches[key] = pairs;
  }
  return out;
}

/** Every built-in cache forgets `messages` (MessageTokenCache.forget): their next count recounts. */
export function forgetTokenCounts(messages: readonly Message[]): void {
  for (const cache of caches.values()) for (const message of messages) cache.forget(message);
}

export function importTokenCounts(data: unknown): number {
  const record = data as Partial<CarriedTokenCounts> | null;
  if (typeof record !== "object" || record === null || record.version !== 1 || typeof record.caches !== "object" || record.caches === null) {
    throw createError("INVALID_ARGUMENT", "Not a record of carried token counts", { module: "@amplifier-ts/tokens", path: "data", expected: '{ version: 1, caches: { "<encoding>|<pricing>": [[hash, count], …] } }', given: data });
  }
  let taken = 0;
  for (const [key, pairs] of Object.entries(record.caches)) {
    if (!Array.isArray(pairs) || !pairs.every((p) => Array.isArray(p) && p.length === 2)) {
      throw createError("INVALID_ARGUMENT", `Carried token counts of "${key}" are not [hash, count] pairs`, { module: "@amplifier-ts/tokens", path: `data.caches.${key}`, expected: "[[hash, count], …]", given: pairs });
    }
    const cache = caches.get(key);
    if (cache) taken += cache.carry(pairs as [string, number][]);
    else {
      waiting.set(key, [...(waiting.get(key) ?? []), ...(pairs as [string, number][])]);
      taken += pairs.length;
    }
  }
  return taken;
}
