/**
 * The RecordSource (lazy messages of @amplifier-ts/stores) of a PostgreSQL session resumed lazily
 * (pg-resume.ts): a record's `start` is its position (its seq) in the session; its text is the
 * row's stored JSON, held in memory.
 *
 * | the row's text | where it is |
 * |---|---|
 * | read by open() (the window's tail, critical messages) | a string, dropped once the message is parsed |
 * | fetched by the loader thread (pg-body-loader.ts) | a page: one UTF-8 buffer for a run of rows, dropped once all of its messages are parsed |
 * | not fetched yet when something reads the message | this thread asks the loader for its page and blocks (Atomics.wait) until the page comes, at most WAIT_MS |
 * | the loader failed, or the wait ran out | STORAGE_UNAVAILABLE when read |
 */
import { receiveMessageOnPort, type MessagePort, type Worker } from "node:worker_threads";
import { createError, type AmplifierError } from "@amplifier-ts/contracts";
import type { LazyRecord, RecordSource } from "@amplifier-ts/stores";
import { LOADER_SLOTS, LOADER_STATE, type LoaderMessage } from "./pg-loader-protocol.js";

/** The longest a read waits for its row's page (the loader fetches it next, so this is one query, plus the thread's start). */
const WAIT_MS = 60_000;

interface Page {
  text: Buffer;
  offsets: Int32Array;
  unparsed: number;
}

export interface RowLoader {
  worker: Worker;
  port: MessagePort;
  shared: SharedArrayBuffer;
}

export class PgRowSource implements RecordSource {
  readonly changedHint = "a row's body or facts column was changed outside the store; set both to NULL (the row then loads from its message column) or rewrite the session";
  readonly #texts: (string | undefined)[];
  /** Per position, the loader page holding its text (-1: none). */
  readonly #pageOf: Int32Array;
  readonly #pageFirst: number[];
  readonly #pages: (Page | undefined)[] = [];
  readonly #pageRows: number[];
  #delivered = 0;
  #loader: { port: MessagePort; shared: Int32Array; worker: Worker } | undefined;
  #failure: string | undefined;
  #settle: (() => void) | undefined;
  /** Resolves once the loader imported the snapshot, failed, or is not needed: the snapshot's exporter may end then. */
  readonly imported: Promise<void>;
  #ended: (() => void) | undefined;
  /** Resolves once the loader thread has ended (at once when there is none). */
  readonly finished: Promise<void>;

  constructor(
    readonly where: string,
    readonly module: string,
    texts: (string | undefined)[],
    pages: readonly number[],
  ) {
    this.#texts = texts;
    this.#pageOf = new Int32Array(texts.length).fill(-1);
    this.#pageFirst = [];
    this.#pageRows = [];
    for (let p = 0; p < pages.length / 2; p++) {
      const first = pages[2 * p]!;
      const last = pages[2 * p + 1]!;
      this.#pageFirst.push(first);
      this.#pageRows.push(last - first + 1);
      this.#pageOf.fill(p, first, last + 1);
    }
    this.imported = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
    this.finished = new Promise<void>((resolve) => {
      this.#ended = resolve;
    });
    if (pages.length === 0) {
      this.#settle!();
      this.#ended!();
    }
  }

  /** Takes the loader's pages as they come (and in a blocking read). */
  attach(loader: RowLoader): void {
    this.#loader = { port: loader.port, shared: new Int32Array(loader.shared), worker: loader.worker };
    loader.port.on("message", (message: LoaderMessage) => this.#absorb(message));
    loader.worker.on("error", (error) => this.#fail(error.message));
    loader.worker.on("exit", () => {
      this.#fail("the loader thread ended");
      this.#ended?.();
    });
    loader.port.unref();
    loader.worker.unref();
  }

  /** No loader could be started: pages not delivered fail when read. */
  fail(reason: string): void {
    this.#fail(reason);
    this.#ended?.();
  }

  text(record: LazyRecord): string {
    const i = record.start;
    const text = this.#texts[i];
    if (text !== undefined) return text;
    const p = this.#pageOf[i] ?? -1;
    if (p < 0) throw this.#unavailable(`row ${i} was not read`);
    const page = this.#pages[p] ?? this.#wait(p);
    const k = i - this.#pageFirst[p]!;
    return page.text.toString("utf8", page.offsets[k]!, page.offsets[k + 1]!);
  }

  parsed(record: LazyRecord): void {
    const i = record.start;
    if (this.#texts[i] !== undefined) {
      this.#texts[i] = undefined;
      return;
    }
    const p = this.#pageOf[i] ?? -1;
    const page = p < 0 ? undefined : this.#pages[p];
    if (page !== undefined && --page.unparsed === 0) this.#pages[p] = EMPTY;
  }

  /** Blocks until page `p` is delivered (asking the loader for it first). */
  #wait(p: number): Page {
    const loader = this.#loader;
    const deadline = performance.now() + WAIT_MS;
    if (loader !== undefined) Atomics.store(loader.shared, LOADER_SLOTS.requested, p + 1);
    for (;;) {
      const seen = loader === undefined ? 0 : Atomics.load(loader.shared, LOADER_SLOTS.delivered);
      this.#drain();
      const page = this.#pages[p];
      if (page !== undefined) return page;
      if (this.#failure !== undefined || loader === undefined) throw this.#unavailable(this.#failure ?? "no loader");
      if (Atomics.load(loader.shared, LOADER_SLOTS.state) !== LOADER_STATE.running) {
        this.#drain();
        throw this.#unavailable(this.#failure ?? `the loader ended without delivering rows ${this.#pageFirst[p]}..`);
      }
      const left = deadline - performance.now();
      if (left <= 0) throw this.#unavailable(`rows ${this.#pageFirst[p]}.. did not arrive within ${WAIT_MS} ms`);
      Atomics.wait(loader.shared, LOADER_SLOTS.delivered, seen, left);
    }
  }

  #drain(): void {
    const port = this.#loader?.port;
    if (port === undefined) return;
    for (let got = receiveMessageOnPort(port); got !== undefined; got = receiveMessageOnPort(port)) this.#absorb(got.message as LoaderMessage);
  }

  #absorb(message: LoaderMessage): void {
    if (message.type === "imported") this.#settle?.();
    else if (message.type === "failed") this.#fail(message.message);
    else {
      if (this.#pages[message.index] !== undefined) return;
      this.#pages[message.index] = { text: Buffer.from(message.text), offsets: message.offsets, unparsed: this.#pageRows[message.index]! };
      if (++this.#delivered === this.#pageRows.length) this.#loader?.port.close();
    }
  }

  #fail(reason: string): void {
    this.#settle?.();
    if (this.#delivered === this.#pageRows.length) return;
    this.#failure ??= reason;
  }

  #unavailable(reason: string): AmplifierError {
    return createError("STORAGE_UNAVAILABLE", `Cannot read a stored message of ${this.where}: ${reason}`, {
      module: this.module,
      hint: "the session's rows are fetched in the background after open(); check that the server runs (a later open() reads them again)",
    });
  }
}

const EMPTY: Page = { text: Buffer.alloc(0), offsets: new Int32Array(1), unparsed: 0 };
