/**
 * A stored message this process holds, whose parsed body can be packed away and brought back.
 *
 * The history's readers keep messages by object identity (the window's history index, the search
 * index, the token caches): a message far behind the window can only stop costing a parsed object
 * if the object everyone holds stays the same. So every message the stored history keeps is a
 * Proxy over a small target, and its fields live in a plain BODY object behind it. Packing
 * (cold-history.ts) replaces the body by a place in a compressed block and the message's facts
 * (contracts MESSAGE_FACTS); the next read parses it again from there.
 *
 * | read                                              | hot (body held)           | packed                        |
 * |---------------------------------------------------|---------------------------|-------------------------------|
 * | `message[MESSAGE_FACTS]` (the shape helpers)      | undefined (fields read)   | the facts, no parse           |
 * | `role`                                            | the body's                | the facts', no parse          |
 * | `message[MESSAGE_BODY]` (copies: shallowCopy)     | the body                  | parsed, then the body         |
 * | anything else (content, metadata, keys, spread)   | the body's                | parsed once, then the body's  |
 * | a write, a delete, a definition                   | refused (false: a TypeError in strict code), like the frozen message it stands for |
 * | Object.freeze / preventExtensions                 | the body's fields move onto the target, frozen: the message is plain from then on and never packed again |
 *
 * The body itself is frozen (a prepared message is deep-frozen when stored; a resumed one when a
 * window first hands it out): windows hand out the body, not a copy (contracts/CONTEXT.md
 * "Copies"). Its fields are reported configurable through the proxy — the language forbids a
 * proxy to report a non-configurable field its target lacks — and stay unwritable.
 *
 * A parsed body is the same JSON the message was packed from: equal field by field, nested values
 * deep-frozen as before; only the nested objects' identity is new (nobody may rely on it: copies
 * share nested values, and the token caches compare strings by value).
 */
import type { Message, MessageFacts } from "@amplifier-ts/contracts";
import { MESSAGE_BODY, MESSAGE_FACTS, MESSAGE_STORED_SIZE } from "@amplifier-ts/contracts";
import { freezeDeep } from "@amplifier-ts/window";

/** Where a packed message's JSON lives: a block of cold-history.ts. */
export interface PackedPlace {
  /** The JSON text of the message at [start, end) of the block. */
  text(start: number, end: number): string;
  /** One of the block's messages was parsed again (its body is held until it is packed anew). */
  revived(): void;
}

/** A held message's state: its body, or where its JSON is packed (with its facts). */
export interface HeldState {
  body: Record<PropertyKey, unknown> | undefined;
  place: PackedPlace | undefined;
  start: number;
  end: number;
  facts: MessageFacts | undefined;
}

const STATE = Symbol("held message state");
type Target = { [STATE]?: HeldState };

/** The held message for `body` (a stored message: validated, copied, frozen — or resumed, frozen when first handed out). */
export function holdMessage(body: Message): Message {
  const plain = body as unknown as Record<PropertyKey, unknown>;
  const target: Target = { [STATE]: { body: plain, place: undefined, start: 0, end: 0, facts: undefined } };
  return new Proxy(target, HANDLER) as unknown as Message;
}

/** The state of a held message (undefined for any other value, or once it was made plain by a freeze). */
export function heldState(message: Message): HeldState | undefined {
  return (message as unknown as { [STATE]?: HeldState })[STATE];
}

/** Parses a packed message (its place gives the JSON); the body is held until it is packed again. */
function parse(state: HeldState): Record<PropertyKey, unknown> {
  const place = state.place!;
  const body = JSON.parse(place.text(state.start, state.end)) as Record<PropertyKey, unknown>;
  freezeDeep(body);
  state.body = body;
  place.revived();
  return body;
}

function view(target: Target): Record<PropertyKey, unknown> {
  const state = target[STATE];
  if (state === undefined) return target as Record<PropertyKey, unknown>;
  return state.body ?? parse(state);
}

/** Freezing must hold for the target itself (the language checks it): the body's fields move there, frozen. */
function materialize(target: Target): void {
  const state = target[STATE];
  if (state === undefined) return;
  const body = state.body ?? parse(state);
  delete target[STATE];
  for (const key of Reflect.ownKeys(body)) {
    const descriptor = Object.getOwnPropertyDescriptor(body, key)!;
    Object.defineProperty(target, key, { ...descriptor, writable: false, configurable: false });
  }
}

const HANDLER: ProxyHandler<Target> = {
  get(target, key) {
    const state = target[STATE];
    if (state === undefined) return key === MESSAGE_BODY ? target : (target as Record<PropertyKey, unknown>)[key];
    if (key === STATE) return state;
    if (key === MESSAGE_FACTS) return state.facts;
    let body = state.body;
    if (body === undefined) {
      if (key === "role") return state.facts!.role;
      if (key === MESSAGE_STORED_SIZE) return state.end - state.start;
      body = parse(state);
    }
    if (key === MESSAGE_STORED_SIZE) return undefined;
    if (key === MESSAGE_BODY) return body;
    return body[key];
  },
  has(target, key) {
    const state = target[STATE];
    if (state !== undefined && key === MESSAGE_FACTS) return state.facts !== undefined;
    return key in view(target);
  },
  ownKeys(target) {
    return Reflect.ownKeys(view(target));
  },
  getOwnPropertyDescriptor(target, key) {
    if (target[STATE] === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
    return configurable(Reflect.getOwnPropertyDescriptor(view(target), key));
  },
  // A stored message is frozen: writes are refused (a TypeError in strict-mode code).
  set(target, key, value) {
    return target[STATE] === undefined ? Reflect.set(target, key, value) : false;
  },
  deleteProperty(target, key) {
    return target[STATE] === undefined ? Reflect.deleteProperty(target, key) : false;
  },
  defineProperty(target, key, descriptor) {
    return target[STATE] === undefined ? Reflect.defineProperty(target, key, descriptor) : false;
  },
  preventExtensions(target) {
    materialize(target);
    return Reflect.preventExtensions(target);
  },
  isExtensible(target) {
    return Reflect.isExtensible(target);
  },
};

/** A frozen body's field as the proxy may report it (its target lacks the field): configurable, still unwritable. */
function configurable(descriptor: PropertyDescriptor | undefined): PropertyDescriptor | undefined {
  if (descriptor !== undefined && descriptor.configurable === false) descriptor.configurable = true;
  return descriptor;
}
