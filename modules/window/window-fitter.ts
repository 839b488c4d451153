/**
 * createWindowFitter(options) → { fit, fitAsync }: the window engine for a framework's own message
 * array — the same window invariants as the context modules (window-assembler.ts), returned in
 * the shape given, kept across calls so an agent loop pays O(new messages) a call.
 *
 * What the fitter keeps between calls, and why:
 *
 * | state                                   | for                                                            |
 * |-----------------------------------------|----------------------------------------------------------------|
 * | the items of the last call (a copy of the array, not of the items) | the next call compares by reference: the array only grew → only the new items are read |
 * | the groups read (fit-codec.ts), each item's messages cached by identity (WeakMap) | items given again — in a rebuilt array, after an edit — are not converted again, and convert to the same messages |
 * | one WindowAssembler over the converted history | token counts of each message once; the cut's hysteresis, so consecutive windows share their prefix (the provider's prompt cache keeps hitting) |
 *
 * When the array is not an extension of the last one (history edited, rewritten, or another
 * conversation), the fitter finds the first item that differs and rebuilds from there — the
 * assembler is rolled back to the first converted message that differs (WindowAssembler.truncate),
 * so a rebuilt array of the same objects costs O(n) reference comparisons, nothing more. Those
 * comparisons are the one O(history) part of a call (≈ 5–10 ns an item); with `appendOnly` the
 * fitter skips them when the first item and the last one it read are still in their places, and a
 * call costs O(new messages + window written).
 *
 * Strategies (contract instances, run in order over the converted history) feed the assembler
 * their output; it follows that output by its shared prefix, like the context modules'
 * pipeline (modules/context-manager/pipeline-window.ts). fit() runs them synchronously and refuses
 * a strategy that returns a Promise (WINDOW_FIT/ASYNC_STRATEGY); fitAsync() awaits them. fitAsync()
 * calls on one fitter run one at a time, in call order; fit() while one is in flight is
 * WINDOW_FIT/BUSY (a fitter holds one conversation's state).
 *
 * Ownership: the caller's items are read, never changed, and kept by reference until the next
 * call; the caller must not mutate an item it has given (give a new object instead — a changed
 * object of the same identity is not read again).
 */
import type { CompactionContext, Message } from "@amplifier-ts/contracts";
import { fromAnthropic, type AnthropicTextBlock } from "@amplifier-ts/adapters";
import type { FormatCodec, Group, SentPart } from "./fit-codec.js";
import { aiSdkCodec } from "./fit-codec-ai-sdk.js";
import { amplifierCodec } from "./fit-codec-amplifier.js";
import { anthropicCodec } from "./fit-codec-anthropic.js";
import { langChainCodec } from "./fit-codec-langchain.js";
import { openAIChatCodec } from "./fit-codec-openai-chat.js";
import { openAIResponsesCodec } from "./fit-codec-openai-responses.js";
import { fitError } from "./fit-errors.js";
import { chooseFormat, maskOf, narrowFormats, type WindowFormat } from "./fit-formats.js";
import { resolveFitOptions, type FitOptions, type ResolvedFitOptions } from "./fit-options.js";
import { fitReport, type FitReport, type Written } from "./fit-report.js";
import { WindowAssembler, type AssembledWindow } from "./window-assembler.js";
import { windowMarkOf } from "./window-marks.js";

export interface FitCallOptions {
  /** Return `{ messages, report }` instead of the window alone. */
  report?: boolean | undefined;
  /** Passed to the strategies (fitAsync). */
  signal?: AbortSignal | undefined;
}

export interface FitResult<T> {
  /** The window, in the shape given. */
  messages: T;
  report: FitReport;
}

export interface WindowFitter {
  /** The window for `messages` (same shape; kept items are the very objects given). */
  fit<T>(messages: T, options?: FitCallOptions & { report?: false | undefined }): T;
  fit<T>(messages: T, options: FitCallOptions & { report: true }): FitResult<T>;
  fit<T>(messages: T, options?: FitCallOptions): T | FitResult<T>;
  /** The same, awaiting strategies that return a Promise (summarizers). */
  fitAsync<T>(messages: T, options?: FitCallOptions & { report?: false | undefined }): Promise<T>;
  fitAsync<T>(messages: T, options: FitCallOptions & { report: true }): Promise<FitResult<T>>;
  fitAsync<T>(messages: T, options?: FitCallOptions): Promise<T | FitResult<T>>;
  /** The format of the messages fitted so far (undefined before the first call). */
  readonly format: WindowFormat | undefined;
  /** Forget every call so far (the next one starts afresh). */
  reset(): void;
}

export function createWindowFitter(options: FitOptions): WindowFitter {
  return new Fitter(resolveFitOptions(options));
}

/** The caller's input: the items, what the envelope adds (Anthropic system, Responses instructions), and how to give a window back in the same envelope. */
interface Envelope {
  readonly items: readonly unknown[];
  readonly preamble: readonly Message[];
  readonly preambleKey: string;
  readonly mask: number;
  wrap(items: unknown[]): unknown;
}

class Fitter implements WindowFitter {
  readonly #options: ResolvedFitOptions;
  #codec: FormatCodec | undefined;
  #mask = 0;
  #items: unknown[] = [];
  #groups: Group[] = [];
  #ours: Message[] = [];
  #preambleKey: string | undefined;
  #envelopeMask = 0;
  #preambleLength = 0;
  readonly #groupOf = new WeakMap<Message, Group>();
  #preamble = new WeakSet<Message>();
  #assembler = new WindowAssembler();
  /** What the assembler holds: the converted history, or the strategies' output. */
  #source: readonly Message[] = [];
  #last: LastWritten | undefined;
  /** The codec's generation when #last was written (FormatCodec.generation). */
  #lastGeneration: number | undefined;
  /** fitAsync() calls run one at a time, in call order; fit() refuses to run beside them. */
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;
  /** A settle() of the assembler is scheduled (#settleWhenIdle). */
  #settling = false;

  constructor(options: ResolvedFitOptions) {
    this.#options = options;
  }

  get format(): WindowFormat | undefined {
    return this.#codec?.format;
  }

  reset(): void {
    this.#codec = undefined;
    this.#mask = 0;
    this.#items = [];
    this.#groups = [];
    this.#ours = [];
    this.#preambleKey = undefined;
    this.#envelopeMask = 0;
    this.#preambleLength = 0;
    this.#preamble = new WeakSet();
    this.#assembler = new WindowAssembler();
    this.#source = [];
    this.#last = undefined;
  }

  fit<T>(messages: T, options?: FitCallOptions & { report?: false | undefined }): T;
  fit<T>(messages: T, options: FitCallOptions & { report: true }): FitResult<T>;
  fit<T>(messages: T, options: FitCallOptions = {}): T | FitResult<T> {
    if (this.#pending > 0) {
      throw fitError("BUSY", "fit() was called while a fitAsync() of the same fitter is still running", {
        expected: "await the fitAsync() call first, or use a fitter per conversation",
        given: `${this.#pending} fitAsync() call(s) in flight`,
      });
    }
    const envelope = this.#envelope(messages);
    const changedFrom = this.#read(envelope);
    let source: readonly Message[] = this.#ours;
    const strategies = this.#options.strategies;
    if (strategies.length > 0) {
      const context = this.#context(options.signal);
      for (const strategy of strategies) {
        const out = strategy.compact(source, context);
        if (isPromise(out)) {
          out.then(undefined, () => undefined);
          throw fitError("ASYNC_STRATEGY", `The strategy "${strategy.name}" returned a Promise; fit() runs synchronously — call fitAsync() instead`, { strategy: strategy.name, expected: "fitAsync() for asynchronous strategies", given: "a Promise" });
        }
        source = out;
      }
    }
    return this.#finish<T>(envelope, source, changedFrom, options);
  }

  fitAsync<T>(messages: T, options?: FitCallOptions & { report?: false | undefined }): Promise<T>;
  fitAsync<T>(messages: T, options: FitCallOptions & { report: true }): Promise<FitResult<T>>;
  fitAsync<T>(messages: T, options: FitCallOptions = {}): Promise<T | FitResult<T>> {
    // One call at a time: a call reads the array into this fitter's state, so calls whose
    // strategies await run in the order they were made.
    const previous = this.#queue;
    this.#pending++;
    const run = (async () => {
      try {
        await previous;
        return await this.#fitAsyncNow<T>(messages, options);
      } finally {
        this.#pending--;
      }
    })();
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #fitAsyncNow<T>(messages: T, options: FitCallOptions): Promise<T | FitResult<T>> {
    const envelope = this.#envelope(messages);
    const changedFrom = this.#read(envelope);
    let source: readonly Message[] = this.#ours;
    if (this.#options.strategies.length > 0) {
      // The converted history is this fitter's live array: the strategies get a snapshot of it.
      source = [...source];
      const context = this.#context(options.signal);
      for (const strategy of this.#options.strategies) source = await strategy.compact(source, context);
    }
    return this.#finish<T>(envelope, source, changedFrom, options);
  }

  /** The assembler over `source`, the window, and the window in the caller's shape. */
  #finish<T>(envelope: Envelope, source: readonly Message[], changedFrom: number, options: FitCallOptions): T | FitResult<T> {
    this.#follow(source, changedFrom);
    const o = this.#options;
    const window = this.#assembler.assemble({
      budget: o.budget,
      counter: o.counter,
      tools: o.tools,
      compactThreshold: o.compactThreshold,
      compactTarget: o.compactTarget,
      minResultTokens: o.minResultTokens,
      thinking: o.thinking,
      explain: options.report === true,
      shared: true,
    });
    if (this.#assembler.pending > 0) this.#settleWhenIdle();
    const written = this.#write(envelope, source, window, options.report === true);
    const messages = envelope.wrap(written.items) as T;
    if (options.report !== true) return messages;
    return { messages, report: fitReport({ format: this.#codec!.format, given: envelope.items.length, window, written, source, groups: this.#groups, groupOf: this.#groupOf }) };
  }

  /**
   * The window priced the newest messages by upper bounds instead of counting them (window-assembler.ts):
   * they are counted once the caller's loop is idle (its model call), so the next call rarely counts.
   */
  #settleWhenIdle(): void {
    if (this.#settling) return;
    this.#settling = true;
    const assembler = this.#assembler;
    idle(() => {
      this.#settling = false;
      if (assembler === this.#assembler && this.#pending === 0) assembler.settle();
    });
  }

  #context(signal: AbortSignal | undefined): CompactionContext {
    const o = this.#options;
    return {
      budget: o.budget,
      counter: o.counter,
      tools: o.tools,
      explain: { record() {}, enabled: false },
      ...(o.search ? { search: o.search } : {}),
      ...(signal ? { signal } : {}),
    };
  }

  #envelope(input: unknown): Envelope {
    const forced = this.#options.format;
    if (Array.isArray(input)) {
      const system = this.#options.system;
      return { items: input, ...preambleOf(system), mask: maskOf(forced), wrap: (items) => items };
    }
    if (typeof input === "object" && input !== null) {
      const o = input as Record<string, unknown>;
      if (Array.isArray(o.messages)) {
        return { items: o.messages, ...preambleOf(o.system ?? this.#options.system), mask: maskOf(forced), wrap: (items) => ({ ...o, messages: items }) };
      }
      if (Array.isArray(o.input) || typeof o.input === "string") {
        const items = typeof o.input === "string" ? [{ role: "user", content: o.input }] : (o.input as unknown[]);
        const instructions = typeof o.instructions === "string" && o.instructions !== "" ? o.instructions : undefined;
        const preamble: Message[] = instructions === undefined ? [] : [{ role: "system", content: instructions }];
        return { items, preamble, preambleKey: instructions ?? "", mask: maskOf(forced ?? "openai-responses"), wrap: (out) => ({ ...o, input: out }) };
      }
    }
    throw fitError("UNKNOWN_FORMAT", "fitWindow takes a message array, Anthropic's { system?, messages } or Responses' { instructions?, input }", {
      path: "messages",
      expected: "an array of messages, { system?, messages } or { instructions?, input }",
      given: input === null ? "null" : typeof input,
    });
  }

  /**
   * Brings the converted history up to date with `envelope.items`; returns the index of its first
   * message that changed (its length when none did).
   */
  #read(envelope: Envelope): number {
    const { items } = envelope;
    if (envelope.preambleKey !== this.#preambleKey || envelope.mask !== this.#envelopeMask) this.#restart(envelope);
    let old = this.#items;
    const p0 = this.#options.appendOnly ? appendedFrom(old, items) : -1;
    const n = Math.min(old.length, items.length);
    let p = p0 < 0 ? 0 : p0;
    if (p0 < 0) while (p < n && old[p] === items[p]) p++;
    if (p === old.length && p === items.length) {
      this.#codec ??= codecFor(chooseFormat(this.#mask));
      return this.#ours.length;
    }

    const mask = p === old.length ? narrowFormats(items, p, this.#mask, this.#options.format) : narrowFormats(items, 0, envelope.mask, this.#options.format);
    const format = chooseFormat(mask);
    if (this.#codec?.format !== format) {
      // The format became clear only now (the first items fit several): read everything again.
      this.#restart(envelope);
      this.#codec = codecFor(format);
      old = this.#items;
      p = 0;
    }
    this.#mask = mask;
    const codec = this.#codec!;
    const groups = this.#groups;
    // The first group that reaches past p (or that p may extend): reading restarts there.
    let k = firstGroupEndingAfter(groups, p);
    if (k > 0 && groups[k - 1]!.open && groups[k - 1]!.first + groups[k - 1]!.count === p) k--;
    let item = k === 0 ? 0 : groups[k - 1]!.first + groups[k - 1]!.count;
    let position = k === 0 ? this.#preambleLength : groups[k - 1]!.start + groups[k - 1]!.messages.length;
    groups.length = k;
    const ours = this.#ours;
    let changedFrom = -1;
    while (item < items.length) {
      const read = codec.read(items, item);
      const group: Group = { ...read, first: item, start: position };
      groups.push(group);
      for (const message of read.messages) {
        this.#groupOf.set(message, group);
        if (changedFrom < 0 && ours[position] === message) {
          position++;
          continue;
        }
        if (changedFrom < 0) {
          changedFrom = position;
          ours.length = position;
        }
        ours.push(message);
        position++;
      }
      item += read.count;
    }
    if (changedFrom < 0) {
      changedFrom = position;
      ours.length = position;
    }
    if (p === old.length) for (let i = old.length; i < items.length; i++) old.push(items[i]);
    else this.#items = Array.from(items);
    return changedFrom;
  }

  #restart(envelope: Envelope): void {
    const codec = this.#codec;
    this.reset();
    this.#codec = codec;
    this.#preambleKey = envelope.preambleKey;
    this.#envelopeMask = envelope.mask;
    this.#mask = envelope.mask;
    this.#ours = [...envelope.preamble];
    this.#preambleLength = envelope.preamble.length;
    for (const m of envelope.preamble) this.#preamble.add(m);
  }

  /** The assembler over `source`: rolled back to where it changed, then appended. */
  #follow(source: readonly Message[], changedFrom: number): void {
    const assembler = this.#assembler;
    let from = changedFrom;
    if (source !== this.#ours || this.#source !== this.#ours) from = Math.min(assembler.length, assembler.sharedPrefix(source));
    if (from < assembler.length) assembler.truncate(from);
    for (let i = assembler.length; i < source.length; i++) assembler.append(source[i]!);
    this.#source = source;
  }

  /**
   * The window in the caller's format (see fit-codec.ts for what is the caller's and what is new).
   * Incremental: the window's messages that the last window started with (by identity: the engine
   * extends a shared window, shared-window.ts) keep the items written for them, from the start of
   * the last group they share on; only the rest is written — O(new) a call. `full` writes it all
   * (the report counts every item).
   */
  #write(envelope: Envelope, source: readonly Message[], window: AssembledWindow, full: boolean): Written {
    const codec = this.#codec!;
    const { items } = envelope;
    const messages = window.messages;
    const sentStored = window.report.sentStored;
    // Items made earlier are reused only while the codec would make them the same (FormatCodec.generation).
    const last = full || codec.generation !== this.#lastGeneration ? undefined : this.#last;
    this.#lastGeneration = codec.generation;
    let r = 0;
    if (last) {
      const n = Math.min(last.window.length, messages.length);
      while (r < n && last.window[r] === messages[r]) r++;
      if (r > 0) r = last.runStart[r - 1]!;
    }
    // The last window's arrays are this fitter's own: cut back in place to r (no copy of the prefix).
    const reuse = last !== undefined && r > 0;
    const out = reuse ? last.out : [];
    const runStart = reuse ? last.runStart : [];
    const nativeAt = reuse ? last.nativeAt : [];
    const sentAt = reuse ? last.sentAt : [];
    const createdRun = reuse ? last.createdRun : [];
    let k = reuse ? sentAt[r]! : 0;
    if (reuse) {
      out.length = nativeAt[r]!;
      runStart.length = r;
      nativeAt.length = r;
      sentAt.length = r;
      createdRun.length = r;
    }

    // Each window message from r on: the group it comes from (undefined: made by the engine or a strategy).
    const entries: Entry[] = [];
    for (let i = r; i < messages.length; i++) {
      const message = messages[i]!;
      sentAt.push(k);
      const stored = k < sentStored.length ? source[sentStored[k]!] : undefined;
      const mark = windowMarkOf(message);
      if (stored === undefined || (mark?.synthetic !== undefined && message.content !== stored.content)) {
        entries.push({ group: undefined, sent: undefined, message, skip: false });
        continue;
      }
      k++;
      if (this.#preamble.has(stored)) {
        entries.push({ group: undefined, sent: undefined, message, skip: true });
        continue;
      }
      const group = this.#groupOf.get(stored);
      const same = message === stored || (message.content === stored.content && message.tool_calls === stored.tool_calls && mark?.truncated === undefined && mark?.repaired === undefined);
      if (!group) {
        entries.push({ group: undefined, sent: undefined, message: same ? stored : message, skip: false });
        continue;
      }
      entries.push({ group, sent: { part: group.messages.indexOf(stored), message, same }, message, skip: false });
    }
    const sentGroups = new Map<Group, boolean>();
    let kept = 0;
    let rewritten = 0;
    let created = 0;
    // The run written last: where it starts, whether its items are made, its group.
    let prev = r > 0 ? { start: runStart[r - 1]!, native: nativeAt[r - 1]!, made: createdRun[r - 1]!, group: undefined as Group | undefined } : undefined;
    for (let e = 0; e < entries.length; ) {
      const { group, skip, message } = entries[e]!;
      let j = e + 1;
      let made: unknown[];
      let whole = false;
      if (!group) made = skip ? [] : codec.create(message);
      else {
        const sent: SentPart[] = [entries[e]!.sent!];
        while (j < entries.length && entries[j]!.group === group) sent.push(entries[j++]!.sent!);
        whole = sent.length === group.messages.length && sent.every((part, k) => part.same && part.part === k);
        made = whole ? (items.slice(group.first, group.first + group.count) as unknown[]) : codec.rewrite(items, group, sent);
      }
      let run = { start: r + e, native: out.length, made: !group && !skip, group };
      // Two user turns in a row where the API wants one (Anthropic: a made-up result beside the
      // caller's results or prompt): one item, and the runs are written again together.
      if (made.length > 0 && prev && codec.merge && out.length > 0 && (run.made || prev.made)) {
        const merged = codec.merge(out[out.length - 1], made[0]);
        if (merged !== undefined) {
          out[out.length - 1] = merged;
          made = made.slice(1);
          if (prev.group) sentGroups.set(prev.group, false);
          whole = false;
          run = { start: prev.start, native: prev.native, made: true, group };
        }
      }
      for (let k = e; k < j; k++) {
        runStart.push(run.start);
        nativeAt.push(run.native);
        createdRun.push(run.made);
      }
      out.push(...made);
      if (!group) created += made.length;
      else {
        sentGroups.set(group, whole);
        if (whole) kept += group.count;
        else rewritten += group.count;
      }
      if (!skip) prev = run;
      e = j;
    }
    this.#last = { window: messages, out, runStart, nativeAt, sentAt, createdRun };
    return { items: out.slice(), kept, rewritten, created, sentGroups };
  }
}

/** One window message, as #write reads it. */
interface Entry {
  readonly group: Group | undefined;
  readonly sent: SentPart | undefined;
  readonly message: Message;
  /** An instruction of the envelope (Anthropic system, Responses instructions): not written. */
  readonly skip: boolean;
}

/** The last window written, for the next call to start from (see #write). */
interface LastWritten {
  readonly window: readonly Message[];
  readonly out: unknown[];
  /** Per window message: the index of the first message of its group's run, and where the run's items start in `out`. */
  readonly runStart: number[];
  readonly nativeAt: number[];
  /** Per window message: how many stored messages the window holds before it. */
  readonly sentAt: number[];
  /** Per window message: its run's items are made (created, or merged with a made one). */
  readonly createdRun: boolean[];
}


function codecFor(format: WindowFormat): FormatCodec {
  switch (format) {
    case "amplifier":
      return amplifierCodec();
    case "openai-chat":
      return openAIChatCodec();
    case "openai-responses":
      return openAIResponsesCodec();
    case "anthropic":
      return anthropicCodec();
    case "ai-sdk":
      return aiSdkCodec();
    case "langchain":
      return langChainCodec();
  }
}

/** Anthropic's system (string or text blocks) as instructions, with a key that changes when its text does. */
function preambleOf(system: unknown): { preamble: Message[]; preambleKey: string } {
  if (system === undefined || system === null || system === "") return { preamble: [], preambleKey: "" };
  if (typeof system !== "string" && !Array.isArray(system)) {
    throw fitError("INVALID_OPTIONS", "system is a string or an array of text blocks", { path: "system", expected: "string | { type: \"text\", text }[]", given: typeof system });
  }
  const preamble = fromAnthropic({ system: system as string | AnthropicTextBlock[], messages: [] });
  return { preamble, preambleKey: preamble.map((m) => m.content).join("\u0000") };
}

/**
 * With `appendOnly`: where the items the last call did not have start (`old.length`), when `items`
 * is `old` grown at its end as far as the first item and the last one read say; -1 otherwise (read
 * by comparing every item). O(1).
 */
function appendedFrom(old: readonly unknown[], items: readonly unknown[]): number {
  const n = old.length;
  if (n === 0 || items.length < n) return -1;
  return items[0] === old[0] && items[n - 1] === old[n - 1] ? n : -1;
}

/** Index of the first group whose items reach past `p` (groups are contiguous and sorted). */
function firstGroupEndingAfter(groups: readonly Group[], p: number): number {
  let lo = 0;
  let hi = groups.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const g = groups[mid]!;
    if (g.first + g.count <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Runs `fn` after the current task (setImmediate where the runtime has it — Node; else a 0 ms timer: browsers, edge runtimes). */
const idle: (fn: () => void) => void = typeof globalThis.setImmediate === "function" ? (fn) => void globalThis.setImmediate(fn) : (fn) => void setTimeout(fn, 0);

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
