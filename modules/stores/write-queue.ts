/**
 * A session's operations, one at a time, in call order — so concurrent async callers never
 * interleave lines, and a rewrite never races an append.
 *
 * With `coalesce` (fsync "batch" and "never"), appends that queued up while a write was in flight
 * are committed together as the next batch: one write and one fsync for all of them (group
 * commit). Each caller's promise still resolves only after the batch holding its records is
 * committed, so the per-promise guarantee is the same as one fsync per append; only throughput
 * changes. Without `coalesce` (fsync "always") each append call is its own write and fsync.
 *
 * A failed batch rejects every append in it (they share one write); other operations are not
 * affected. After `poison(error)` every queued and future operation rejects with that error — a
 * session whose load failed or that was closed.
 */
export interface WriteQueueOptions<R> {
  commit(records: R[]): Promise<void>;
  coalesce: boolean;
  /** Upper bound of one batch, in weight units (bytes of JSON); a single larger append still goes alone. */
  maxBatchWeight: number;
  weight(record: R): number;
}

type QueuedOp<R> =
  | { kind: "append"; records: R[]; resolve(): void; reject(error: unknown): void }
  | { kind: "task"; run(): Promise<unknown>; resolve(value: unknown): void; reject(error: unknown): void };

export class WriteQueue<R> {
  private readonly ops: QueuedOp<R>[] = [];
  private draining = false;
  private poisoned: { error: unknown } | undefined;

  constructor(private readonly options: WriteQueueOptions<R>) {}

  append(records: R[]): Promise<void> {
    return new Promise<void>((resolve, reject) => this.push({ kind: "append", records, resolve, reject }));
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.push({ kind: "task", run: task, resolve: resolve as (value: unknown) => void, reject }),
    );
  }

  poison(error: unknown): void {
    this.poisoned ??= { error };
  }

  get isPoisoned(): boolean {
    return this.poisoned !== undefined;
  }

  private push(op: QueuedOp<R>): void {
    if (this.poisoned) {
      op.reject(this.poisoned.error);
      return;
    }
    this.ops.push(op);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.ops.length > 0) {
        if (this.poisoned) {
          for (const op of this.ops.splice(0)) op.reject(this.poisoned.error);
          return;
        }
        const head = this.ops[0]!;
        if (head.kind === "task") {
          this.ops.shift();
          try {
            head.resolve(await head.run());
          } catch (error) {
            head.reject(error);
          }
          continue;
        }
        const batch = this.takeBatch();
        try {
          await this.options.commit(batch.flatMap((op) => op.records));
          for (const op of batch) op.resolve();
        } catch (error) {
          for (const op of batch) op.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The appends at the head of the queue that go into one commit. */
  private takeBatch(): Extract<QueuedOp<R>, { kind: "append" }>[] {
    const first = this.ops.shift() as Extract<QueuedOp<R>, { kind: "append" }>;
    const batch = [first];
    if (!this.options.coalesce) return batch;
    let weight = this.weigh(first);
    while (this.ops[0]?.kind === "append") {
      const next = this.ops[0];
      const w = this.weigh(next);
      if (weight + w > this.options.maxBatchWeight) break;
      this.ops.shift();
      batch.push(next);
      weight += w;
    }
    return batch;
  }

  private weigh(op: { records: R[] }): number {
    let total = 0;
    for (const record of op.records) total += this.options.weight(record);
    return total;
  }
}
