/**
 * PromptMirror: the stored messages that stand for a prompt, kept across calls. The AI SDK builds
 * the provider prompt afresh for every step (new objects each time), while the window fitter pays
 * O(new) only for a history it has seen as the SAME objects. So the mirror remembers, per position
 * and content, the stored messages it made: a prompt that only grew gets the very objects of the
 * previous call for its old part, and only its new messages are converted (and later tokenized).
 *
 * Cost per call: one JSON fingerprint per prompt message (cheap beside tokenizing; bytes are
 * hashed once per Uint8Array object). Remembered entries are bounded (the oldest go first).
 */
import type { Message } from "@amplifier-ts/contracts";
import { storedPieces, type StoredPiece } from "./prompt-to-stored.js";

/** Where a stored message came from: the prompt message (and part) it stands for. */
export interface Origin extends StoredPiece {
  /** Index of the prompt message. */
  readonly index: number;
}

export interface MirroredPrompt {
  /** The stored messages, in prompt order (what the fitter gets). */
  readonly messages: Message[];
  /** metadata.id of each stored message → its origin. */
  readonly origins: ReadonlyMap<string, Origin>;
  /** Tool call id → tool name, for results the window makes up (interrupted calls). */
  readonly callNames: ReadonlyMap<string, string>;
}

const MIN_CAPACITY = 4_096;

export class PromptMirror {
  #entries = new Map<string, StoredPiece[]>();
  #next = 0;
  readonly #prefix: string;

  constructor(prefix = "ai-sdk") {
    this.#prefix = prefix;
  }

  mirror(prompt: readonly unknown[], path = "prompt"): MirroredPrompt {
    const messages: Message[] = [];
    const origins = new Map<string, Origin>();
    const callNames = new Map<string, string>();
    prompt.forEach((message, index) => {
      const key = `${index}\u0000${fingerprint(message)}`;
      let pieces = this.#entries.get(key);
      if (pieces === undefined) {
        pieces = storedPieces(message, `${path}[${index}]`).map((piece) => this.#withId(piece));
      } else this.#entries.delete(key); // re-inserted below: the map's order is recency
      this.#entries.set(key, pieces);
      for (const piece of pieces) {
        messages.push(piece.message);
        origins.set(piece.message.metadata!.id as string, { ...piece, index });
        for (const call of piece.message.tool_calls ?? []) callNames.set(call.id, call.function.name);
      }
    });
    const capacity = Math.max(MIN_CAPACITY, 4 * prompt.length);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= capacity) break;
      this.#entries.delete(key);
    }
    return { messages, origins, callNames };
  }

  #withId(piece: StoredPiece): StoredPiece {
    const message = Object.freeze({ ...piece.message, metadata: { id: `${this.#prefix}-${this.#next++}` } });
    return { ...piece, message };
  }
}

const byteKeys = new WeakMap<Uint8Array, string>();

/** The content of a prompt message as a string (bytes by length and hash). */
function fingerprint(message: unknown): string {
  return JSON.stringify(message, (_key, value: unknown) => {
    if (!(value instanceof Uint8Array)) return value;
    let key = byteKeys.get(value);
    if (key === undefined) {
      key = `bytes:${value.length}:${fnv1a(value)}`;
      byteKeys.set(value, key);
    }
    return key;
  });
}

function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return (hash >>> 0).toString(16);
}
