/**
 * Messages of a resumed session that are parsed only when something reads them.
 *
 * A session file of 100,000 messages is ~200 MB of JSON; a window shows a few hundred of them.
 * With a trusted sidecar index (session-index-file.ts) the store hands the context a list of LAZY
 * messages: each is a Proxy over an empty object that knows where its record lives and carries
 * the record's facts (contracts MESSAGE_FACTS: role, critical, note, calls, result ids, turn
 * content, ids). What it costs to read one:
 *
 * | read                                            | what happens                           |
 * |-------------------------------------------------|----------------------------------------|
 * | `message[MESSAGE_FACTS]` (the shape helpers)    | answered from the index, no parse      |
 * | `role`; `tool_call_id` of a tool result          | answered from the index, no parse      |
 * | `message[MESSAGE_BODY]` (copies: window shallowCopy) | parsed if needed, then the plain object itself: a copy reads it directly, not through the proxy |
 * | anything else (content, metadata, keys, spread, JSON.stringify) | the record is read (a block of the file around it, see RecordSource) and parsed once, checked (a Message whose role is the index's); from then on every operation goes to that plain object |
 * | freezing it, a non-configurable definition | as above, then its fields move onto the proxy's own target (the language requires it) |
 *
 * Reads are synchronous (a property read cannot wait), through a file descriptor the batch of
 * messages opened at load. Appends never move an earlier record and a rewrite replaces the file
 * by rename, so the open descriptor keeps the bytes these messages were indexed against for as
 * long as any of them is unparsed; it is closed when the last one is parsed, or when no lazy
 * message of the batch is reachable any more (FinalizationRegistry). A record that no longer
 * parses to the message its index describes is STORAGE_UNAVAILABLE (changed outside the store).
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Message, MessageFacts } from "@amplifier-ts/contracts";
import { createError, MESSAGE_BODY, MESSAGE_FACTS } from "@amplifier-ts/contracts";
import { parseStored } from "./message-codec.js";
import { storageUnavailable } from "./storage-errors.js";

/** Where one record lives and what the index says about it. */
export interface LazyRecord {
  readonly start: number;
  readonly end: number;
  readonly facts: MessageFacts;
}

/** The open file a batch of lazy messages reads from. */
class RecordSource {
  #fd: number | undefined;
  #unparsed: number;
  /** The last block read ([start, start + length) of the file): a pass over many messages reads blocks, not records. */
  #block: Buffer | undefined;
  #blockStart = 0;
  #lastStart = -1;

  constructor(
    readonly file: string,
    readonly module: string,
    fd: number,
    count: number,
  ) {
    this.#fd = fd;
    this.#unparsed = count;
    if (count === 0) this.close();
  }

  text(start: number, end: number): string {
    const block = this.#block;
    if (block !== undefined && start >= this.#blockStart && end <= this.#blockStart + block.length) {
      this.#lastStart = start;
      return block.toString("utf8", start - this.#blockStart, end - this.#blockStart);
    }
    // Reading forwards (getMessages, search): the block starts at the record; backwards (a
    // window counting from the end): it ends with it. One record alone when it is larger.
    const forwards = start > this.#lastStart;
    this.#lastStart = start;
    const length = Math.max(end - start, BLOCK_BYTES);
    const from = forwards ? start : Math.max(0, end - length);
    const data = this.#read(from, length);
    if (data.length < end - from) throw storageUnavailable(new Error("the session file is shorter than its index (changed outside the store)"), this.module, this.file, `read ${this.file}`);
    this.#block = data;
    this.#blockStart = from;
    return data.toString("utf8", start - from, end - from);
  }

  /** Up to `length` bytes from `from` (fewer at the end of the file). */
  #read(from: number, length: number): Buffer {
    const fd = this.#fd;
    if (fd === undefined) throw storageUnavailable(new Error("the session file was closed"), this.module, this.file, `read ${this.file}`);
    const data = Buffer.allocUnsafe(length);
    let done = 0;
    try {
      while (done < length) {
        const read = readSync(fd, data, done, length - done, from + done);
        if (read === 0) break;
        done += read;
      }
    } catch (error) {
      throw storageUnavailable(error, this.module, this.file, `read ${this.file}`);
    }
    return data.subarray(0, done);
  }

  /** One more message parsed; the last one closes the file. */
  parsed(): void {
    if (--this.#unparsed === 0) this.close();
  }

  close(): void {
    this.#block = undefined;
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    sources.unregister(this);
    try {
      closeSync(fd);
    } catch {
      // Already closed by the process teardown: nothing to release.
    }
  }
}

/** Bytes read at once when a message is parsed: its neighbours are usually parsed next. */
const BLOCK_BYTES = 256 * 1024;

interface LazyState {
  readonly source: RecordSource;
  readonly record: LazyRecord;
  /** The parsed message, once something read it. */
  body?: Record<PropertyKey, unknown>;
}

/**
 * A lazy message's state sits on its target under this symbol (a property read is cheaper than
 * a WeakMap lookup, and the shape helpers read a lazy message ~6 times while a resume indexes
 * it). Operations never reach the target: they go to the parsed body (so nobody sees the
 * symbol), until a freeze or a non-configurable definition materializes the message onto the
 * target, which drops the symbol.
 */
const STATE = Symbol("lazy message state");
type Target = { [STATE]?: LazyState };
/** Every lazy message holds its source; when none is reachable, its descriptor is closed. */
const sources = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/**
 * Lazy messages for `records` of `file`, read through a descriptor opened here (sync: a resume
 * holds the session's lock, and this is one open). Throws STORAGE_UNAVAILABLE when the file
 * cannot be opened.
 */
export function lazyMessages(file: string, module: string, records: readonly LazyRecord[]): Message[] {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    throw storageUnavailable(error, module, file, `open ${file}`);
  }
  const source = new RecordSource(file, module, fd, records.length);
  if (records.length > 0) sources.register(source, fd, source);
  const messages: Message[] = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const target: Target = { [STATE]: { source, record: records[i]! } };
    messages[i] = new Proxy(target, HANDLER) as Message;
  }
  return messages;
}

/** Whether `message` is a lazy message not parsed yet (tests, benchmarks); reading it parses nothing. */
export function isUnparsed(message: Message): boolean {
  return (message as { [UNPARSED]?: boolean })[UNPARSED] === true;
}

/** Asked of a lazy message, answers whether it is still unparsed; a plain message has no such key. */
const UNPARSED = Symbol.for("amplifier-ts.unparsed");

/** Parses the record once: the message, checked against the index; every later operation goes to it. */
function parse(state: LazyState): Record<PropertyKey, unknown> {
  const { source, record } = state;
  const message = parseStored(source.text(record.start, record.end), source.file, source.module);
  if (message.role !== record.facts.role) {
    throw createError("STORAGE_UNAVAILABLE", `A stored record changed outside the store (its index says role "${record.facts.role}", the record has "${message.role}")`, {
      module: source.module,
      file: source.file,
      hint: "another program modified the session while its index was kept; delete the .index file beside it to rebuild the index",
    });
  }
  state.body = message as unknown as Record<PropertyKey, unknown>;
  source.parsed();
  return state.body;
}

/** The object operations go to: the parsed body (parsed now if needed), or the target once materialized. */
function view(target: Target): Record<PropertyKey, unknown> {
  const state = target[STATE];
  if (state === undefined) return target as Record<PropertyKey, unknown>;
  return state.body ?? parse(state);
}

/**
 * Freezing a message, or defining a non-configurable property on it, must hold for the proxy's
 * target itself (the language checks it): the body's fields move onto the target, which is the
 * message from then on. Rare (stored messages are not frozen whole); the target then leaves V8's
 * fast mode, which costs nothing that matters here.
 */
function materialize(target: Target): void {
  const state = target[STATE];
  if (state === undefined) return;
  const body = state.body ?? parse(state);
  factsAfterMaterialize.set(target, state.record.facts);
  delete target[STATE];
  // Defined, not assigned: a "__proto__" key of the record stays a plain property.
  for (const key of Reflect.ownKeys(body)) Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(body, key)!);
}

/** Facts stay readable after materialize (they still describe the message). */
const factsAfterMaterialize = new WeakMap<object, MessageFacts>();

const HANDLER: ProxyHandler<Target> = {
  // Unparsed: the facts, role and a tool result's call id come from the index (see the table
  // above); no allocation. Parsed: reads go to the parsed body, a fast-mode plain object.
  get(target, key) {
    const state = target[STATE];
    if (state === undefined) {
      if (key === MESSAGE_FACTS) return factsAfterMaterialize.get(target);
      if (key === UNPARSED) return false;
      if (key === MESSAGE_BODY) return target;
      return (target as Record<PropertyKey, unknown>)[key];
    }
    const { facts } = state.record;
    if (key === MESSAGE_FACTS) return facts;
    let body = state.body;
    if (body === undefined) {
      if (key === UNPARSED) return true;
      if (key === "role") return facts.role;
      if (key === "tool_call_id" && facts.role === "tool" && facts.resultIds.length === 1) return facts.resultIds[0];
      body = parse(state);
    }
    if (key === UNPARSED) return false;
    if (key === MESSAGE_BODY) return body;
    return body[key];
  },
  has(target, key) {
    return key === MESSAGE_FACTS || key in view(target);
  },
  ownKeys(target) {
    return Reflect.ownKeys(view(target));
  },
  getOwnPropertyDescriptor(target, key) {
    return Reflect.getOwnPropertyDescriptor(view(target), key);
  },
  set(target, key, value) {
    return Reflect.set(view(target), key, value);
  },
  deleteProperty(target, key) {
    return Reflect.deleteProperty(view(target), key);
  },
  defineProperty(target, key, descriptor) {
    materialize(target);
    return Reflect.defineProperty(target, key, descriptor);
  },
  preventExtensions(target) {
    materialize(target);
    return Reflect.preventExtensions(target);
  },
  isExtensible(target) {
    return Reflect.isExtensible(target);
  },
};
