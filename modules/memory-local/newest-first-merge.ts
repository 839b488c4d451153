import type { RingBuffer } from "./ring-buffer.js";

/** An entry of a session's ring buffer: the event and its place in the memory-wide order of additions. */
export interface Sequenced<T> {
  seq: number;
  value: T;
}

/**
 * The newest `limit` entries over several ring buffers (each oldest → newest by `seq`) that
 * `accept` lets through, newest last: a k-way merge walking back from each buffer's newest
 * entry, with a max-heap of the buffers keyed by the seq of their next entry.
 *
 * Cost: O(buffers) to build the heap, then O(log buffers) per entry looked at — O(buffers +
 * limit · log buffers) without a filter, never O(all entries) unless a filter skips them.
 */
export function newestFirstMerge<K, T>(buffers: Iterable<[K, RingBuffer<Sequenced<T>>]>, limit: number, accept: (value: T) => boolean): { key: K; value: T }[] {
  const picked: { key: K; value: T }[] = [];
  if (limit <= 0) return picked;
  const heap: Cursor<K, T>[] = [];
  for (const [key, buffer] of buffers) {
    const newest = buffer.fromNewest(0);
    if (newest !== undefined) heap.push({ key, buffer, age: 0, seq: newest.seq });
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
  while (heap.length > 0 && picked.length < limit) {
    const top = heap[0]!;
    const entry = top.buffer.fromNewest(top.age)!;
    if (accept(entry.value)) picked.push({ key: top.key, value: entry.value });
    const next = top.buffer.fromNewest(++top.age);
    if (next === undefined) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else {
      top.seq = next.seq;
    }
    siftDown(heap, 0);
  }
  return picked.reverse();
}

// ---- private helpers ----

interface Cursor<K, T> {
  key: K;
  buffer: RingBuffer<Sequenced<T>>;
  /** How far back from the buffer's newest entry the cursor stands. */
  age: number;
  /** The seq of the entry at the cursor: the heap's key (largest on top). */
  seq: number;
}

function siftDown<K, T>(heap: Cursor<K, T>[], start: number): void {
  let i = start;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let largest = i;
    if (left < heap.length && heap[left]!.seq > heap[largest]!.seq) largest = left;
    if (right < heap.length && heap[right]!.seq > heap[largest]!.seq) largest = right;
    if (largest === i) return;
    [heap[i], heap[largest]] = [heap[largest]!, heap[i]!];
    i = largest;
  }
}
