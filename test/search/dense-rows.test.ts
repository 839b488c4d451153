import { describe, expect, it } from "vitest";
import type { Embedder, Message } from "../../contracts/index.js";
import { DenseRows } from "../../modules/search/dense-rows.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";

/** Seeded PRNG (mulberry32): the same cases every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(random: () => number, dims: number, coarse: boolean): Float32Array {
  // Coarse vectors (entries in {-1, 0, 1}) give many equal scores: the tie order is checked too.
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = coarse ? Math.floor(random() * 3) - 1 : random() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) v[i] = v[i]! / norm;
  return v;
}

/** The from-scratch answer: every accepted position below `bound` with a vector, by score (desc), then position. */
function reference(vectors: (Float32Array | undefined)[], query: Float32Array, accept: (p: number) => boolean, bound: number, limit: number): number[] {
  const scored: { p: number; s: number }[] = [];
  for (let p = 0; p < Math.min(bound, vectors.length); p++) {
    const v = vectors[p];
    if (!v || !accept(p)) continue;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, i = 0;
    for (; i + 3 < v.length; i += 4) {
      s0 += v[i]! * query[i]!;
      s1 += v[i + 1]! * query[i + 1]!;
      s2 += v[i + 2]! * query[i + 2]!;
      s3 += v[i + 3]! * query[i + 3]!;
    }
    for (; i < v.length; i++) s0 += v[i]! * query[i]!;
    scored.push({ p, s: s0 + s1 + s2 + s3 });
  }
  return scored.sort((a, b) => b.s - a.s || a.p - b.p).slice(0, limit).map((x) => x.p);
}

describe("DenseRows: the incremental nearest scan answers as a from-scratch one", () => {
  it.each([1, 2, 3, 4, 5, 6])("random appends, late vectors, rewinds, moving bounds and repeated queries (seed %i)", (seed) => {
    const random = rng(seed);
    const dims = seed % 2 === 0 ? 16 : 7;
    const coarse = seed % 3 === 0;
    const rows = new DenseRows();
    const messages: Message[] = [];
    const vectors: (Float32Array | undefined)[] = [];
    const byMessage = new Map<Message, Float32Array>();
    let version = 0;
    const queries = Array.from({ length: seed <= 3 ? 1 : 3 }, () => unitVector(random, dims, coarse));
    let compared = 0;
    let cached = 0;
    for (let step = 0; step < 400; step++) {
      const r = random();
      if (r < 0.45) {
        // Appended, its vector now or later.
        const m = { role: random() < 0.2 ? "tool" : "user", content: `m${step}` } as Message;
        messages.push(m);
        vectors.push(undefined);
        if (random() < 0.6) {
          const v = unitVector(random, dims, coarse);
          byMessage.set(m, v);
          vectors[messages.length - 1] = v;
          version++;
        }
      } else if (r < 0.6) {
        // A waiting message gets its vector.
        const waiting = vectors.flatMap((v, p) => (v ? [] : [p]));
        if (waiting.length > 0) {
          const p = waiting[Math.floor(random() * waiting.length)]!;
          const v = unitVector(random, dims, coarse);
          byMessage.set(messages[p]!, v);
          vectors[p] = v;
          version++;
        }
      } else if (r < 0.65 && messages.length > 0) {
        // A rewind: the tail taken out.
        const keep = Math.floor(random() * messages.length);
        messages.length = keep;
        vectors.length = keep;
        rows.truncate(keep);
      } else {
        rows.sync(messages, (m) => byMessage.get(m), version);
        const query = queries[Math.floor(random() * queries.length)]!;
        const roles = random() < 0.2 ? ["user"] : ["user", "tool"];
        const accept = (p: number) => roles.includes(messages[p]!.role);
        const bound = random() < 0.7 ? messages.length : Math.floor(random() * (messages.length + 1));
        const limit = 1 + Math.floor(random() * (seed <= 3 ? 40 : 12));
        const key = random() < 0.9 ? roles.join() : undefined;
        if (key !== undefined) cached++;
        expect(rows.nearest(query, accept, bound, limit, key)).toEqual(reference(vectors, query, accept, bound, limit));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
    expect(cached).toBeGreaterThan(30);
  });

  it("a query of other dimensions finds nothing; limit 0 finds nothing", () => {
    const rows = new DenseRows();
    const m = { role: "user", content: "a" } as Message;
    rows.sync([m], () => Float32Array.from([1, 0]), 1);
    expect(rows.nearest(Float32Array.from([1, 0, 0]), () => true, 1, 5, "")).toEqual([]);
    expect(rows.nearest(Float32Array.from([1, 0]), () => true, 1, 0, "")).toEqual([]);
    expect(rows.nearest(Float32Array.from([1, 0]), () => true, 1, 5, "")).toEqual([0]);
  });
});

/** A deterministic embedder: each word adds ±1 to a hashed dimension. */
function hashEmbedder(dims: number): Embedder {
  const hash = (w: string) => {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  return {
    name: "hash",
    dimensions: dims,
    embed: async (texts) =>
      texts.map((t) => {
        const v = new Float32Array(dims);
        for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) v[hash(w) % dims]! += hash(w) & 1024 ? 1 : -1;
        return v;
      }),
  };
}

describe("HistorySearchIndex with an embedder: searched while the history grows, it ranks as an index built from scratch", () => {
  it("same hits after every append, for repeated and changing queries and bounds", async () => {
    const random = rng(42);
    const words = ["deploy", "payments", "kafka", "rollback", "dinner", "pizza", "car", "vehicle", "budget", "latency", "timeout", "priya", "review", "tests"];
    const said = () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]!).join(" ");
    const history: Message[] = [];
    const embedder = hashEmbedder(32);
    const live = new HistorySearchIndex(() => history, { embedder });
    const queries = ["kafka rollback", "which vehicle", "pizza budget"];
    for (let step = 0; step < 60; step++) {
      for (let i = 0; i < 5; i++) history.push({ role: random() < 0.3 ? "assistant" : "user", content: said(), metadata: { id: `m${step}-${i}` } } as Message);
      live.noteChanged();
      if (step % 3 === 0) await live.indexReady();
      const query = queries[step % queries.length]!;
      const options = { k: 6, before: step % 4 === 0 ? Math.floor(history.length / 2) : history.length, filter: { role: ["user", "assistant"] as Message["role"][] } };
      const got = await live.search(query, options);
      // From scratch: a new index over a copy holding the same vectors' messages (embedded alike, deterministic).
      const fresh = new HistorySearchIndex(() => history, { embedder });
      fresh.noteChanged();
      await fresh.indexReady();
      // The live index may not have every vector yet (embedded in the background); compared once it has.
      await live.indexReady();
      const again = await live.search(query, options);
      const expected = await fresh.search(query, options);
      expect(again.map((h) => [h.id, h.score])).toEqual(expected.map((h) => [h.id, h.score]));
      expect(got.length).toBeGreaterThan(0);
    }
  });
});
