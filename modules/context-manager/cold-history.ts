/**
 * Packs the stored messages far behind the window into compressed blocks, so a long session does
 * not hold every message as a parsed object (heap ≤ 1.2× the raw JSON at 100k messages).
 *
 * | rule            | semantics                                                                            |
 * |-----------------|--------------------------------------------------------------------------------------|
 * | what is cold    | a held message (held-message.ts) at least `hotTail` positions behind the newest, and behind the first message the last window over the history kept |
 * | never packed    | instructions (system/developer, not turn notes) and critical messages: every window shows them |
 * | a block         | `blockSize` consecutive positions: their JSON, UTF-8, deflated (level 1), kept as a one-byte string (on the heap, where it is measured) |
 * | when            | once a whole block is due after a change, in the event loop's idle turns (setImmediate), at most SLICE_MS of blocks a slice (at least one block): never inside the call that appended (a turn's own cost stays O(new)); amortized O(1) per message |
 * | yields to turns | while the owner has a call in flight (`busy()`: addMessage, a window, a rewrite …) no slice runs — not even inside that call's awaited store write; the packing resumes when the last call in flight ends. A turn never waits for more than the slice already running |
 * | owned           | `close()` (the context manager's close) cancels the scheduled slice, releases idle() waiters and schedules nothing ever again: a closed session leaves no work behind |
 * | read again      | a packed message read (getMessages, search, a wider window) is parsed from its block — the last inflated block is kept for its neighbours, and while a call of the owner is in flight every block it inflated (up to CALL_INFLATED_BYTES), so one call inflates each block at most once — and held until the next append packs it away again |
 * | token caches    | their entries for a packed message are dropped (they keep its strings alive); counting it again recounts |
 *
 * Nothing observable changes: a packed message answers every read with an equal value (see
 * held-message.ts); the history's readers keep the same objects.
 */
import type { Message } from "@amplifier-ts/contracts";
import { factsOf, isCritical, isInstruction, knownFacts } from "@amplifier-ts/contracts";
import { CallGate } from "./call-gate.js";
import { forgetTokenCounts } from "@amplifier-ts/tokens";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { heldState, type HeldState, type PackedPlace } from "./held-message.js";

export interface ColdHistoryOptions {
  /** The newest messages never packed (default 4,096: the window and the counts carried to the next process). */
  hotTail?: number;
  /** Messages per block (default 64, ~128 KB of JSON for agent-loop messages). */
  blockSize?: number;
}

export const DEFAULT_HOT_TAIL = 4_096;
export const DEFAULT_BLOCK_SIZE = 64;
/** Longest one packing slice holds the event loop, ms (one block is ~1.5 ms at 64 agent-loop messages). */
const SLICE_MS = 2;
/**
 * Inflated JSON kept for the call in flight, bytes (~64 blocks of agent-loop messages): a search
 * and the plan after it read hits and their neighbours in score order, across blocks and back;
 * each block is inflated once per call, not once per visit. Released when the last call ends.
 */
export const CALL_INFLATED_BYTES = 8 * 1024 * 1024;

export class ColdHistory {
  readonly #hotTail: number;
  readonly #blockSize: number;
  /** The history array followed (the stored history's live array: it only grows until replaced). */
  #history: readonly Message[] | undefined;
  /** Positions below this were considered for packing. */
  #packedUpTo = 0;
  /** Positions at or after this are kept hot (the last window over the history started there). */
  #windowStart = Number.POSITIVE_INFINITY;
  /** Blocks with messages parsed again since they were packed. */
  readonly #revived = new Set<ColdBlock>();
  /** The last block inflated, shared by all blocks (one at a time is enough for a pass in order). */
  readonly #inflated: { block: ColdBlock | undefined; data: Buffer | undefined } = { block: undefined, data: undefined };
  /** The blocks inflated during the call in flight (busy()), up to CALL_INFLATED_BYTES; emptied when the last call ends. */
  readonly #callInflated = new Map<ColdBlock, Buffer>();
  #callInflatedBytes = 0;
  #inflations = 0;
  #packed = 0;
  /** The slice scheduled to pack what is due. */
  #scheduled: NodeJS.Immediate | undefined;
  /** Callers of idle() waiting for the packing to catch up. */
  #waiting: (() => void)[] = [];
  /** Calls of the owner in flight (busy()): no slice runs while there is one. */
  /** The owner's calls in flight: when the last ends, the call's inflated blocks go and the packing resumes. */
  readonly #calls = new CallGate(() => {
    this.#releaseCallInflated();
    this.#kick();
  });
  #closed = false;

  constructor(options: ColdHistoryOptions = {}) {
    this.#hotTail = Math.max(0, options.hotTail ?? DEFAULT_HOT_TAIL);
    this.#blockSize = Math.max(1, options.blockSize ?? DEFAULT_BLOCK_SIZE);
  }

  /** Messages packed so far (tests, benchmarks). */
  get packed(): number {
    return this.#packed;
  }

  /** Blocks inflated so far (tests, benchmarks: what reading packed messages cost). */
  get inflations(): number {
    return this.#inflations;
  }

  /** The last window over the stored history kept the messages from `position` on: they stay hot. */
  windowFrom(position: number): void {
    this.#windowStart = position;
    this.#kick();
  }

  /**
   * After every change of the history: packs away again what was parsed since (no compression:
   * O(those)), and schedules the packing of the blocks now due. A replaced array (setMessages,
   * clear, clearRun) is followed from its start.
   */
  maintain(history: readonly Message[]): void {
    if (history !== this.#history) {
      this.#history = history;
      this.#packedUpTo = 0;
      this.#windowStart = Number.POSITIVE_INFINITY;
    }
    if (this.#revived.size > 0) this.#repack();
    this.#kick();
  }

  /**
   * Resolves once every block due is packed (tests, benchmarks: the steady state between turns);
   * at once when closed. While a call is in flight it waits for that call to end first.
   */
  idle(): Promise<void> {
    if (this.#closed || !this.#due()) return Promise.resolve();
    this.#schedule();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /**
   * A call of the owner starts (a turn's addMessage, its window, a rewrite): no packing slice runs
   * until the returned function is called — the call, and every store write it awaits, never
   * shares the event loop with packing. Calls may overlap; the packing resumes after the last.
   */
  busy(): () => void {
    return this.#calls.enter();
  }

  /** Whether a slice is scheduled (tests: a closed or caught-up history has none). */
  get scheduled(): boolean {
    return this.#scheduled !== undefined;
  }

  /**
   * Stops the packing for good: the scheduled slice is cancelled, idle() waiters are released, and
   * nothing is scheduled again. A slice is synchronous, so none is left running once this returns;
   * the promise is for owners that await their parts' close.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#releaseCallInflated();
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#release();
    return Promise.resolve();
  }

  #due(): boolean {
    const history = this.#history;
    if (history === undefined) return false;
    return Math.min(history.length - this.#hotTail, this.#windowStart) - this.#packedUpTo >= this.#blockSize;
  }

  /** After any change: the next slice when a block is due and no call is in flight; idle() waiters released when none is due. */
  #kick(): void {
    if (this.#closed) return this.#release();
    if (this.#calls.busy) return;
    if (this.#due()) this.#schedule();
    else this.#release();
  }

  #schedule(): void {
    if (this.#closed || this.#calls.busy) return;
    this.#scheduled ??= setImmediate(() => this.#packSlice());
  }

  /** Packs due blocks for up to SLICE_MS (one block at least), then yields to the event loop until none is due. */
  #packSlice(): void {
    this.#scheduled = undefined;
    // A call began since this slice was scheduled: its end schedules the next (busy()).
    if (this.#closed || this.#calls.busy) return;
    const until = performance.now() + SLICE_MS;
    while (this.#due()) {
      this.#pack(this.#history!.slice(this.#packedUpTo, this.#packedUpTo + this.#blockSize));
      this.#packedUpTo += this.#blockSize;
      if (performance.now() >= until) break;
    }
    if (this.#due()) return this.#schedule();
    this.#release();
  }

  #release(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /** Packs the held, hot, non-instruction, non-critical messages of `messages` into one block. */
  #pack(messages: readonly Message[]): void {
    const members: Message[] = [];
    const states: HeldState[] = [];
    const texts: string[] = [];
    for (const message of messages) {
      // Facts: packed already, or loaded lazily by a store (whose proxy would parse on any other read).
      if (knownFacts(message) !== undefined) continue;
      const state = heldState(message);
      if (state === undefined || state.body === undefined || state.place !== undefined) continue;
      const body = state.body as unknown as Message;
      if (isInstruction(body) || isCritical(body)) continue;
      members.push(message);
      states.push(state);
      texts.push(JSON.stringify(body));
    }
    if (members.length === 0) return;
    // Before the bodies go: the caches find a message's id in its body.
    forgetTokenCounts(members);
    const block = new ColdBlock(this, members, texts);
    let start = 0;
    for (let i = 0; i < states.length; i++) {
      const state = states[i]!;
      const end = start + Buffer.byteLength(texts[i]!);
      state.facts = compactFacts(state.body as unknown as Message);
      state.place = block;
      state.start = start;
      state.end = end;
      state.body = undefined;
      start = end;
    }
    this.#packed += members.length;
  }

  /** Drops again the bodies parsed from packed blocks since the last change. */
  #repack(): void {
    const again: Message[] = [];
    for (const block of this.#revived) {
      for (const message of block.members) {
        const state = heldState(message);
        if (state?.place === block && state.body !== undefined) again.push(message);
      }
    }
    this.#revived.clear();
    forgetTokenCounts(again);
    for (const message of again) heldState(message)!.body = undefined;
  }

  /** @internal ColdBlock: one of `block`'s messages was parsed again. */
  revived(block: ColdBlock): void {
    this.#revived.add(block);
  }

  /** @internal ColdBlock: the inflated JSON of `block` (the last one inflated is kept; during a call, every one up to CALL_INFLATED_BYTES). */
  inflate(block: ColdBlock, packed: string): Buffer {
    const cached = this.#inflated;
    if (cached.block !== block) {
      let data = this.#calls.busy ? this.#callInflated.get(block) : undefined;
      if (data === undefined) {
        data = inflateRawSync(Buffer.from(packed, "latin1"));
        this.#inflations++;
        if (this.#calls.busy && this.#callInflatedBytes + data.length <= CALL_INFLATED_BYTES) {
          this.#callInflated.set(block, data);
          this.#callInflatedBytes += data.length;
        }
      }
      cached.data = data;
      cached.block = block;
    }
    return cached.data!;
  }

  /** The call in flight ended (or the history closed): its inflated blocks go, but the last one. */
  #releaseCallInflated(): void {
    this.#callInflated.clear();
    this.#callInflatedBytes = 0;
  }
}

/** Consecutive messages' JSON, deflated; where each packed member of it reads its text. */
class ColdBlock implements PackedPlace {
  /** The deflated UTF-8 JSON as a one-byte string: one byte per byte, on the heap. */
  readonly #packed: string;

  constructor(
    readonly owner: ColdHistory,
    /** The messages packed here (to pack them again once parsed). */
    readonly members: readonly Message[],
    texts: readonly string[],
  ) {
    this.#packed = deflateRawSync(Buffer.from(texts.join(""), "utf8"), { level: 1 }).toString("latin1");
  }

  text(start: number, end: number): string {
    return this.owner.inflate(this, this.#packed).toString("utf8", start, end);
  }

  revived(): void {
    this.owner.revived(this);
  }
}

/** factsOf, with the empty lists shared (100k packed messages hold one pair of them, not 100k). */
function compactFacts(message: Message) {
  const facts = factsOf(message);
  if (facts.calls.length > 0 && facts.resultIds.length > 0) return facts;
  return { ...facts, calls: facts.calls.length > 0 ? facts.calls : NONE, resultIds: facts.resultIds.length > 0 ? facts.resultIds : NONE } as typeof facts;
}

const NONE: readonly never[] = Object.freeze([]);
