/**
 * Each message is tokenized at most once per (tokenizer, image rule): counts are cached, and a
 * cached count is only returned for a message that would count the same.
 *
 * How a hit is proven: the entry keeps a snapshot — the flat list of every value the count
 * depends on (role, name, each text, image sizes and detail, tool names and arguments, block
 * types and numbers; never metadata). A lookup rebuilds the snapshot and compares it element
 * by element with `===`. Strings compare by value, so a changed message can never get a stale
 * count — not a truncated copy carrying the same `metadata.id`, not a message mutated in
 * place. The comparison costs O(number of parts); the strings are usually the very same
 * objects (copies share them), which V8 compares in O(1), else a memcmp — far cheaper than
 * tokenizing. tool_use inputs are re-serialised with JSON.stringify (small by nature).
 *
 * Where entries live:
 * - by object identity (WeakMap): lives exactly as long as the message object;
 * - by `metadata.id` (LRU, `capacity` ids, up to 4 variants per id so a stored message and its
 *   truncated copy in a window do not evict each other): lets copies of a message — what
 *   context managers hand out — hit too.
 * The cache holds references to the snapshot strings of at most `capacity` × 4 id variants.
 */
import { createHash } from "node:crypto";
import type { Message } from "@amplifier-ts/contracts";
import { knownFacts } from "@amplifier-ts/contracts";

export const DEFAULT_MESSAGE_CACHE_CAPACITY = 100_000;
const VARIANTS_PER_ID = 4;

type Snapshot = unknown[];

interface Entry {
  readonly snapshot: Snapshot;
  readonly count: number;
}

export interface MessageCacheStats {
  hits: number;
  misses: number;
  /** Ids currently held by the LRU. */
  size: number;
}

export class MessageTokenCache {
  readonly #byObject = new WeakMap<object, Entry>();
  readonly #byId = new Map<string, Entry[]>();
  readonly #capacity: number;
  /** Counts carried over from an earlier process (carried-counts.ts): snapshot hash → count. */
  readonly #carried = new Map<string, number>();
  #hits = 0;
  #misses = 0;

  constructor(capacity = DEFAULT_MESSAGE_CACHE_CAPACITY) {
    this.#capacity = capacity;
  }

  /** The cached count of `message`, or `count(message)` — computed, cached and returned. */
  getOrCount(message: Message, count: (message: Message) => number): number {
    if (typeof message !== "object" || message === null) return count(message);
    const snapshot = snapshotMessage(message);
    const own = this.#byObject.get(message);
    if (own && sameSnapshot(own.snapshot, snapshot)) {
      this.#hits++;
      return own.count;
    }
    const id = idOf(message);
    const variants = id === undefined ? undefined : this.#byId.get(id);
    const shared = variants?.find((entry) => sameSnapshot(entry.snapshot, snapshot));
    if (shared) {
      this.#hits++;
      this.#byObject.set(message, shared);
      this.#touch(id as string, variants as Entry[], shared);
      return shared.count;
    }
    // A count carried over from an earlier process is proven like a cached one: by the hash of
    // the same snapshot (every value the count depends on).
    const carried = this.#carried.size > 0 ? this.#carried.get(snapshotHash(snapshot)) : undefined;
    if (carried !== undefined) this.#hits++;
    const entry: Entry = { snapshot, count: carried ?? count(message) };
    if (carried === undefined) this.#misses++;
    this.#byObject.set(message, entry);
    if (id !== undefined) this.#touch(id, variants ?? [], entry);
    return entry.count;
  }

  /** Takes counts an earlier process exported (`carriedOf`): used when a message with that snapshot is first counted. */
  carry(pairs: Iterable<readonly [string, number]>): number {
    let taken = 0;
    for (const [hash, count] of pairs) {
      if (typeof hash !== "string" || !Number.isSafeInteger(count) || count < 0) continue;
      this.#carried.set(hash, count);
      taken++;
    }
    return taken;
  }

  /**
   * [snapshot hash, count] of each of `messages` this cache has counted: looked up by object, so a
   * lazily loaded message is never read; a plain message not counted as itself (a copy, a
   * constant made anew) is also looked up by its id and snapshot.
   */
  carriedOf(messages: Iterable<Message>): [string, number][] {
    const out: [string, number][] = [];
    for (const message of messages) {
      if (typeof message !== "object" || message === null) continue;
      let entry = this.#byObject.get(message);
      if (!entry && knownFacts(message) === undefined) {
        const id = idOf(message);
        const snapshot = id === undefined ? undefined : snapshotMessage(message);
        entry = snapshot && this.#byId.get(id!)?.find((e) => sameSnapshot(e.snapshot, snapshot));
      }
      if (entry) out.push([snapshotHash(entry.snapshot), entry.count]);
    }
    return out;
  }

  /**
   * Drops what this cache holds for `message` (its entry by object, and the same entry under its
   * id): the snapshot keeps the message's strings alive, so a holder that packs a message away
   * (context-manager cold-history.ts) releases them here. The next count of it recounts. Reads
   * `metadata.id` only when the message has an entry.
   */
  forget(message: Message): void {
    if (typeof message !== "object" || message === null) return;
    const entry = this.#byObject.get(message);
    if (entry === undefined) return;
    this.#byObject.delete(message);
    const id = idOf(message);
    const variants = id === undefined ? undefined : this.#byId.get(id);
    const at = variants ? variants.indexOf(entry) : -1;
    if (at < 0) return;
    variants!.splice(at, 1);
    if (variants!.length === 0) this.#byId.delete(id!);
  }

  get stats(): MessageCacheStats {
    return { hits: this.#hits, misses: this.#misses, size: this.#byId.size };
  }

  /** Move `entry` to the front of its id's variants and the id to the LRU's young end. */
  #touch(id: string, variants: Entry[], entry: Entry): void {
    if (variants[0] !== entry) {
      const at = variants.indexOf(entry);
      if (at > 0) variants.splice(at, 1);
      variants.unshift(entry);
      if (variants.length > VARIANTS_PER_ID) variants.length = VARIANTS_PER_ID;
    }
    this.#byId.delete(id);
    this.#byId.set(id, variants);
    if (this.#byId.size > this.#capacity) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
  }
}

/**
 * Every value countMessageTokens() reads, flattened with shape markers so two different
 * messages cannot produce equal snapshots. Tolerates malformed input (counting rejects it).
 */
export function snapshotMessage(message: Message): Snapshot {
  const out: Snapshot = [message.role, message.name];
  pushContent(out, message.content);
  const calls: unknown = message.tool_calls;
  if (Array.isArray(calls)) {
    out.push("calls", calls.length);
    for (const call of calls) {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      out.push(fn?.name, fn?.arguments);
    }
  } else out.push(calls);
  return out;
}

function pushContent(out: Snapshot, content: unknown): void {
  if (!Array.isArray(content)) {
    out.push(typeof content === "string" ? "s" : "v", content);
    return;
  }
  out.push("blocks", content.length);
  for (const raw of content) {
    const block = (raw ?? {}) as Record<string, unknown>;
    out.push(block.type);
    switch (block.type) {
      case "text":
        out.push(block.text);
        break;
      case "image":
        out.push(block.width, block.height);
        break;
      case "image_url":
        out.push(block.width, block.height, (block.image_url as { detail?: unknown } | undefined)?.detail);
        break;
      case "tool_use":
        out.push(block.name, safeJson(block.input));
        break;
      case "tool_result":
        pushContent(out, block.content);
        break;
      case "thinking":
        out.push(block.thinking);
        break;
      case "redacted_thinking":
        out.push(typeof block.data === "string" ? block.data.length : block.data);
        break;
      case "compaction": {
        // What the count reads: the provider, and the summary text or the encrypted length.
        const data = (block.data ?? {}) as Record<string, unknown>;
        out.push(block.provider, data.type, data.content, typeof data.encrypted_content === "string" ? data.encrypted_content.length : data.encrypted_content);
        break;
      }
      default:
        out.push(raw); // unknown: counting will reject it, so it is never cached
    }
  }
}

/** SHA-1 of a snapshot (undefined kept apart from null): the key of a carried-over count. */
export function snapshotHash(snapshot: Snapshot): string {
  const text = JSON.stringify(snapshot, (_key, value: unknown) => (value === undefined ? "\u0000undefined" : value));
  return createHash("sha1").update(text).digest("base64");
}

function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function idOf(message: Message): string | undefined {
  const id = (message.metadata as { id?: unknown } | undefined)?.id;
  return typeof id === "string" ? id : undefined;
}

function safeJson(value: unknown): unknown {
  try {
    return JSON.stringify(value ?? {});
  } catch {
    return value; // circular input: compared by identity; counting will fail on it anyway
  }
}
