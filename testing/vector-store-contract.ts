/**
 * The conformance suite of the VectorStore contract (contracts/search.ts). Every vector store
 * runs it — in-memory, pgvector, third parties':
 *
 * ```ts
 * describeVectorStoreContract("memory", async ({ embedder }) => ({ store: new InMemoryVectorStore({ embedder }) }));
 * ```
 *
 * The factory gets `embedder` (a deterministic test embedder) or nothing; it must return a store
 * over EMPTY storage using that embedder. Documents, query vectors and the embedder are all
 * 3-dimensional and chosen so the expected order is exact.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Embedder, VectorDocument, VectorStore } from "@amplifier-ts/contracts";

export interface VectorStoreUnderTest {
  store: VectorStore;
  /** Removes the storage (the suite closes the store first). */
  cleanup?(): Promise<void>;
}

export type VectorStoreFactory = (options: { embedder?: Embedder }) => Promise<VectorStoreUnderTest>;

/** Embeds by keyword: x = "cat", y = "dog", z = "car" (counts), so texts have exact directions. */
export const keywordEmbedder: Embedder = {
  name: "keyword-test",
  dimensions: 3,
  embed: async (texts) => texts.map((t) => Float32Array.from(["cat", "dog", "car"].map((w) => (t.match(new RegExp(w, "g")) ?? []).length + 0.001))),
};

const doc = (id: string, embedding: number[], metadata: VectorDocument["metadata"] = {}, content = `content of ${id}`): VectorDocument => ({ id, content, embedding, metadata });

export function describeVectorStoreContract(name: string, factory: VectorStoreFactory): void {
  describe(`VectorStore contract: ${name}`, () => {
    let open: VectorStoreUnderTest[] = [];
    const make = async (options: { embedder?: Embedder } = {}) => {
      const made = await factory(options);
      open.push(made);
      return made.store;
    };
    afterEach(async () => {
      for (const made of open) {
        await made.store.close?.();
        await made.cleanup?.();
      }
      open = [];
    });

    it("queries by cosine similarity, best first, with scores in [-1, 1] and the stored content and metadata", async () => {
      const store = await make();
      await store.add([doc("x", [1, 0, 0], { kind: "a" }), doc("xy", [1, 1, 0]), doc("y", [0, 1, 0]), doc("neg", [-1, 0, 0])]);
      const hits = await store.query([1, 0, 0], { limit: 4 });
      expect(hits.map((h) => h.id)).toEqual(["x", "xy", "y", "neg"]);
      expect(hits[0]).toMatchObject({ content: "content of x", metadata: { kind: "a" } });
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 5);
      expect(hits[2]!.score).toBeCloseTo(0, 5);
      expect(hits[3]!.score).toBeCloseTo(-1, 5);
    });

    it("returns at most `limit` hits (default 5) and accepts Float32Array queries", async () => {
      const store = await make();
      await store.add(Array.from({ length: 7 }, (_, i) => doc(`d${i}`, [1, i, 0])));
      expect(await store.query(Float32Array.from([1, 0, 0]))).toHaveLength(5);
      expect(await store.query([1, 0, 0], { limit: 2 })).toHaveLength(2);
      expect(await store.query([1, 0, 0], { limit: 0 })).toEqual([]);
    });

    it("add is insert-if-absent: an existing id is left unchanged and not reported as inserted", async () => {
      const store = await make();
      expect(await store.add([doc("a", [1, 0, 0], {}, "first")])).toEqual(["a"]);
      expect(await store.add([doc("a", [0, 1, 0], {}, "second"), doc("b", [0, 1, 0])])).toEqual(["b"]);
      expect(await store.get("a")).toMatchObject({ content: "first" });
      expect((await store.query([1, 0, 0], { limit: 1 }))[0]!.id).toBe("a");
      expect(await store.count()).toBe(2);
    });

    it("upsert is insert-or-replace: content, embedding and metadata replaced whole", async () => {
      const store = await make();
      await store.upsert([doc("a", [1, 0, 0], { v: 1, old: true }, "first")]);
      await store.upsert([doc("a", [0, 1, 0], { v: 2 }, "second"), doc("b", [0, 0, 1])]);
      expect(await store.get("a")).toMatchObject({ content: "second", metadata: { v: 2 } });
      expect((await store.get("a"))!.metadata).not.toHaveProperty("old");
      expect((await store.query([0, 1, 0], { limit: 1 }))[0]!.id).toBe("a");
      expect(await store.count()).toBe(2);
    });

    it("keeps collections apart; collections() lists the non-empty ones", async () => {
      const store = await make();
      await store.add([doc("a", [1, 0, 0])], { collection: "one" });
      await store.add([doc("a", [0, 1, 0], {}, "other")], { collection: "two" });
      expect(await store.collections()).toEqual(["one", "two"]);
      expect((await store.get("a", { collection: "two" }))!.content).toBe("other");
      expect(await store.query([1, 0, 0])).toEqual([]);
      expect(await store.count({ collection: "one" })).toBe(1);
      expect(await store.delete(["a"], { collection: "one" })).toBe(1);
      expect(await store.collections()).toEqual(["two"]);
    });

    it("filters on metadata: equality, { in: [...] }, every key must match, an absent key does not match", async () => {
      const store = await make();
      await store.add([doc("u1", [1, 0, 0], { role: "user", run: 1 }), doc("a1", [1, 0.1, 0], { role: "assistant", run: 1 }), doc("u2", [1, 0.2, 0], { role: "user", run: 2 }), doc("none", [1, 0, 0])]);
      const ids = async (filter: Parameters<VectorStore["query"]>[1]) => (await store.query([1, 0, 0], { limit: 10, ...filter })).map((h) => h.id).sort();
      expect(await ids({ filter: { role: "user" } })).toEqual(["u1", "u2"]);
      expect(await ids({ filter: { role: "user", run: 2 } })).toEqual(["u2"]);
      expect(await ids({ filter: { role: { in: ["assistant", "user"] } } })).toEqual(["a1", "u1", "u2"]);
      expect(await ids({ filter: { role: "system" } })).toEqual([]);
    });

    it("delete removes the given ids, ignores absent ones and reports how many it deleted", async () => {
      const store = await make();
      await store.add([doc("a", [1, 0, 0]), doc("b", [0, 1, 0])]);
      expect(await store.delete(["a", "zzz"])).toBe(1);
      expect(await store.get("a")).toBeUndefined();
      expect((await store.query([1, 0, 0])).map((h) => h.id)).toEqual(["b"]);
      expect(await store.delete(["a"], { collection: "never-written" })).toBe(0);
    });

    it("requires embeddings without an embedder: a typed error naming the document, nothing stored", async () => {
      const store = await make();
      await expect(store.add([doc("ok", [1, 0, 0]), { id: "bare", content: "no vector" }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("bare") });
      await expect(store.upsert([{ id: "bare", content: "no vector" }])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await expect(store.queryText("cat")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      expect(await store.count()).toBe(0);
    });

    it("computes missing embeddings and text queries with its embedder", async () => {
      const store = await make({ embedder: keywordEmbedder });
      await store.add([{ id: "c", content: "cat cat" }, { id: "d", content: "dog" }, { id: "k", content: "car", embedding: [0, 0, 1] }]);
      expect((await store.queryText("a dog", { limit: 1 }))[0]!.id).toBe("d");
      expect((await store.queryText("my car", { limit: 1 }))[0]!.id).toBe("k");
      expect((await store.query([1, 0, 0], { limit: 1 }))[0]!.id).toBe("c");
    });

    it("rejects a vector of another dimension than the collection's with a typed error", async () => {
      const store = await make();
      await store.add([doc("a", [1, 0, 0])]);
      await expect(store.add([doc("b", [1, 0])])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await expect(store.query([1, 0])).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    });
  });
}
