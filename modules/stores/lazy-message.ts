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
 * | anything else (content, metadata, keys, spread, JSON.stringify) | the record is read (from its RecordSource: for a file, a block around it) and parsed once, checked (a Message whose role is the index's); from then on every operation goes to that plain object |
 * | freezing it, a non-configurable definition | as above, then its fields move onto the proxy's own target (the language requires it) |
 *
 * Reads are synchronous (a property read cannot wait), from the batch's RecordSource: a session
 * file's descriptor opened at load (file-record-source.ts: appends never move a record, a rewrite
 * replaces the file by rename, so the descriptor keeps the indexed bytes), or text a database
 * store fetched (PostgreSQL: the rows' stored JSON, the window's part at open and the rest in the
 * background). A record that no longer parses to the message its facts describe is
 * STORAGE_UNAVAILABLE (changed outside the store).
 */
import type { Message, MessageFacts } from "@amplifier-ts/contracts";
import { createError, MESSAGE_BODY, MESSAGE_FACTS, MESSAGE_STORED_SIZE } from "@amplifier-ts/contracts";
import { parseStored } from "./message-codec.js";

/** Where one record lives and what the index says about it. */
export interface LazyRecord {
  readonly start: number;
  readonly end: number;
  readonly facts: MessageFacts;
  /**
   * The length of the record's stored JSON (MESSAGE_STORED_SIZE: an upper bound of the characters
   * of text it carries), when `end - start` is not that length: a PostgreSQL record's start and end
   * are row positions, its size the row's `bytes`. Omitted: `end - start` (a file's byte offsets).
   */
  readonly size?: number;
}

/**
 * Where a batch of lazy messages reads its records: a session file (file-record-source.ts) or
 * text a database store holds in memory (PostgreSQL). Reads are synchronous (a property read
 * cannot wait); what a record's `start` and `end` mean is the source's own.
 */
export interface RecordSource {
  /** Names the source in errors (a file, "session x in PostgreSQL at …"). */
  readonly where: string;
  readonly module: string;
  /** The record's stored JSON text; throws STORAGE_UNAVAILABLE when it cannot be read. */
  text(record: LazyRecord): string;
  /** One more message of the batch parsed (its text is no longer needed). */
  parsed(record: LazyRecord): void;
  /** What to do when a record no longer matches its facts (the error's hint). */
  readonly changedHint: string;
}

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
/** Lazy messages for `records`, each read from `source` when first needed. */
export function lazyMessagesFrom(source: RecordSource, records: readonly LazyRecord[]): Message[] {
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
  const message = parseStored(source.text(record), source.where, source.module);
  if (message.role !== record.facts.role) {
    throw createError("STORAGE_UNAVAILABLE", `A stored record changed outside the store (its index says role "${record.facts.role}", the record has "${message.role}")`, {
      module: source.module,
      file: source.where,
      hint: source.changedHint,
    });
  }
  state.body = message as unknown as Record<PropertyKey, unknown>;
  source.parsed(record);
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
      if (key === MESSAGE_STORED_SIZE) return state.record.size ?? state.record.end - state.record.start;
      if (key === "role") return facts.role;
      if (key === "tool_call_id" && facts.role === "tool" && facts.resultIds.length === 1) return facts.resultIds[0];
      body = parse(state);
    }
    if (key === UNPARSED) return false;
    if (key === MESSAGE_STORED_SIZE) return undefined;
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
    const descriptor = Reflect.getOwnPropertyDescriptor(view(target), key);
    // A window froze the parsed body it handed out (contracts/CONTEXT.md "Copies"); the target lacks
    // the field, so the proxy may only report it configurable (still unwritable). Once materialized
    // the target holds the fields itself and answers as it is.
    if (descriptor !== undefined && descriptor.configurable === false && target[STATE] !== undefined) descriptor.configurable = true;
    return descriptor;
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
