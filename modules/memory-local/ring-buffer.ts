/**
 * A bounded FIFO: push is O(1) and, once full, overwrites the oldest entry (O(1) eviction, like a
 * bounded deque). Storage grows with use up to `capacity`, so a large capacity costs
 * nothing until it is filled.
 */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  /** Index of the oldest entry once the buffer has wrapped. */
  private head = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length;
  }

  /** Adds `item`; returns true when the oldest entry was evicted to make room. */
  push(item: T): boolean {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return false;
    }
    this.items[this.head] = item;
    this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    return true;
  }

  /** The entries, oldest first (a copy). */
  toArray(): T[] {
    return this.head === 0 ? this.items.slice() : [...this.items.slice(this.head), ...this.items.slice(0, this.head)];
  }

  /** The entry `age` places back from the newest (0 = newest), or undefined. */
  fromNewest(age: number): T | undefined {
    if (age < 0 || age >= this.items.length) return undefined;
    const index = (this.head - 1 - age + 2 * this.items.length) % this.items.length;
    return this.items[index];
  }
}
