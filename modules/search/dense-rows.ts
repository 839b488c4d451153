/**
 * DenseRows: the vectors of a history's messages by position, in one contiguous Float32Array
 * (row p = the unit vector of message p), and the nearest-neighbour scan over them.
 *
 * | per search                     | work                                                                                   |
 * |--------------------------------|----------------------------------------------------------------------------------------|
 * | sync (no vector arrived since) | nothing (MessageVectors.version unchanged, no new position)                            |
 * | sync (vectors arrived)         | one look-up per position still without a row (new positions, and those still waiting) |
 * | nearest, a new query           | one tight dot-product loop over the accepted rows (no per-message look-up, no object per row) |
 * | nearest, the same query again  | (same query vector, same filter, a bound `before` not lower) the last answer's best rows merged with the rows that arrived since and the positions the bound now lets in: O(new), not O(history) |
 *
 * The answer is the same as a from-scratch scan's (test/search/dense-rows.test.ts): the best
 * `limit` accepted positions by cosine, ties by position, ascending. Scores are computed with the
 * same four-sum loop over the same float32 values, so they are bit-identical. The cached answer is
 * exact because nothing it ranked changes: a position's message (the index is rewound/reset,
 * which truncates or resets the rows), its vector (a message's vector is set once) and whether
 * the filter accepts it (the filter's key is compared; a function filter is never cached) stay.
 */
import type { Message } from "@amplifier-ts/contracts";
import { dot } from "./dot.js";

interface NearestCache {
  query: Float32Array;
  key: string;
  /** Exclusive bound on positions the cached answer covered. */
  bound: number;
  /** How many best positions it kept. */
  want: number;
  positions: number[];
  scores: number[];
}

export class DenseRows {
  #dims = 0;
  #rows = new Float32Array(0);
  #has = new Uint8Array(0);
  /** Positions [0, #count) were looked at; those without a vector are in #missing. */
  #count = 0;
  #missing: number[] = [];
  #version = -1;
  /** Positions that got their row since #cache was made. */
  #fresh: number[] = [];
  #cache: NearestCache | undefined;

  /** Rows kept (for tests). */
  get rows(): number {
    let n = 0;
    for (let p = 0; p < this.#count; p++) n += this.#has[p]!;
    return n;
  }

  /** Forget everything (the index was rebuilt). */
  reset(): void {
    this.#count = 0;
    this.#missing = [];
    this.#fresh = [];
    this.#has.fill(0);
    this.#version = -1;
    this.#cache = undefined;
  }

  /** Positions from `n` on were taken out of the index (a rewind): their rows go. */
  truncate(n: number): void {
    if (n >= this.#count) return;
    this.#has.fill(0, n, this.#count);
    this.#count = n;
    this.#missing = this.#missing.filter((p) => p < n);
    this.#fresh = [];
    this.#version = -1;
    this.#cache = undefined;
  }

  /** Brings the rows up to date with `messages` (the index's, by position) and their vectors. */
  sync(messages: readonly Message[], vectorOf: (message: Message) => Float32Array | undefined, version: number): void {
    if (version === this.#version && this.#count === messages.length) return;
    const missing = this.#missing;
    let kept = 0;
    for (let i = 0; i < missing.length; i++) {
      const p = missing[i]!;
      if (!this.#take(p, vectorOf(messages[p]!))) missing[kept++] = p;
    }
    missing.length = kept;
    for (let p = this.#count; p < messages.length; p++) if (!this.#take(p, vectorOf(messages[p]!))) missing.push(p);
    this.#count = messages.length;
    this.#version = version;
  }

  /**
   * The `limit` nearest of the positions below `bound` that `accept` lets through, best first, by
   * dot product with `query` (unit vectors: cosine). `key` names what `accept` accepts besides the
   * bound (undefined: not cacheable); with the same query vector and key a later call reuses this answer.
   */
  nearest(query: Float32Array, accept: (position: number) => boolean, bound: number, limit: number, key: string | undefined): number[] {
    if (limit <= 0 || query.length !== this.#dims) return [];
    const end = Math.min(bound, this.#count);
    const positions: number[] = [];
    const scores: number[] = [];
    const cache = this.#cache;
    let want = limit;
    if (key !== undefined && cache !== undefined && cache.query === query && cache.key === key && cache.want >= limit && end >= cache.bound) {
      want = cache.want;
      for (let i = 0; i < cache.positions.length; i++) insert(positions, scores, want, cache.positions[i]!, cache.scores[i]!);
      for (const p of this.#fresh) if (p < cache.bound && accept(p)) insert(positions, scores, want, p, this.#dot(query, p));
      for (let p = cache.bound; p < end; p++) if (this.#has[p] === 1 && accept(p)) insert(positions, scores, want, p, this.#dot(query, p));
    } else {
      for (let p = 0; p < end; p++) if (this.#has[p] === 1 && accept(p)) insert(positions, scores, want, p, this.#dot(query, p));
    }
    if (key !== undefined) {
      this.#cache = { query, key, bound: end, want, positions, scores };
      this.#fresh = [];
    }
    return positions.length > limit ? positions.slice(0, limit) : positions.slice();
  }

  /** The dot product of `query` with position `p`'s row (cosine for unit vectors); undefined when `p` has no row. */
  score(query: Float32Array, p: number): number | undefined {
    if (p < 0 || p >= this.#count || this.#has[p] !== 1 || query.length !== this.#dims) return undefined;
    return this.#dot(query, p);
  }

  #take(p: number, vector: Float32Array | undefined): boolean {
    if (vector === undefined) return false;
    if (this.#dims === 0) this.#dims = vector.length;
    if (vector.length !== this.#dims) return false;
    if (this.#has.length <= p) this.#grow(p + 1);
    this.#rows.set(vector, p * this.#dims);
    this.#has[p] = 1;
    if (this.#cache !== undefined) this.#fresh.push(p);
    return true;
  }

  #grow(needed: number): void {
    const capacity = Math.max(needed, this.#has.length * 2, 1024);
    const rows = new Float32Array(capacity * this.#dims);
    rows.set(this.#rows);
    const has = new Uint8Array(capacity);
    has.set(this.#has);
    this.#rows = rows;
    this.#has = has;
  }

  /** The same loop, the same order, as a per-vector scan (dot.ts). */
  #dot(query: Float32Array, p: number): number {
    return dot(this.#rows, p * this.#dims, query, this.#dims);
  }
}

/** Inserts (p, score) into the best-first lists (ties: lower position first), keeping at most `want`. */
function insert(positions: number[], scores: number[], want: number, p: number, score: number): void {
  const n = positions.length;
  if (n === want) {
    const lastScore = scores[n - 1]!;
    if (score < lastScore || (score === lastScore && p > positions[n - 1]!)) return;
    if (!(score > lastScore) && !(score === lastScore)) return; // NaN
  }
  let at = n;
  while (at > 0 && (scores[at - 1]! < score || (scores[at - 1] === score && positions[at - 1]! > p))) at--;
  positions.splice(at, 0, p);
  scores.splice(at, 0, score);
  if (positions.length > want) {
    positions.pop();
    scores.pop();
  }
}
