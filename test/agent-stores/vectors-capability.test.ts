import { describe, expect, it } from "vitest";
import { Coordinator, mountConfiguredModules } from "../../core/index.js";
import { EMBEDDER_CAPABILITY, isAmplifierError, requireStore, type Embedder } from "../../contracts/index.js";
import { loadVectorStore } from "../../modules/store-vectors/index.js";
import { PG_URL } from "../stores/postgres-support.js";

/** Embeds by keyword counts: x = "cat", y = "dog". */
const embedder: Embedder = {
  name: "keywords",
  dimensions: 2,
  embed: async (texts) => texts.map((t) => Float32Array.from(["cat", "dog"].map((w) => (t.match(new RegExp(w, "g")) ?? []).length + 0.001))),
};

describe('the "vectors" capability (store-vectors)', () => {
  it("embeds documents and queries with the session's \"embedder\" capability when one is registered before the stores mount", async () => {
    const coordinator = new Coordinator();
    coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
    const outcome = await mountConfiguredModules(coordinator, { session: { context: { module: "context-simple" } }, stores: { vectors: { module: "store-vectors", config: { type: "memory" } } } }, { baseDir: process.cwd() });
    expect(outcome.error).toBeUndefined();
    expect(outcome.modules.find((m) => m.point === "stores")).toMatchObject({ module: "store-vectors", name: "vectors", path: "stores.vectors", status: "mounted" });
    const vectors = requireStore(coordinator, "vectors");
    await vectors.add([
      { id: "pets", content: "a cat and a cat" },
      { id: "walks", content: "the dog, the dog, the dog" },
    ]);
    expect((await vectors.queryText("which cat?", { limit: 1 }))[0]?.id).toBe("pets");
    expect((await vectors.queryText("dog", { limit: 1 }))[0]?.id).toBe("walks");
    await coordinator.cleanup();
    expect(coordinator.getCapability("vectors")).toBeUndefined();
  });

  it("postgres loads PgVectorStore from @amplifier-ts/vector-store-postgres; without a url or AMPLIFIER_PG_URL it is INVALID_ARGUMENT; unknown types UNKNOWN_STORE", async () => {
    const store = await loadVectorStore({ type: "postgres", url: PG_URL, table: "amp_test_vectors" });
    expect(store.kind).toBe("pgvector");
    await store.close?.();
    const saved = process.env.AMPLIFIER_PG_URL;
    delete process.env.AMPLIFIER_PG_URL;
    try {
      const error = await loadVectorStore({ type: "postgres" }).catch((e: unknown) => e);
      expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.path).toBe("config.url");
    } finally {
      if (saved !== undefined) process.env.AMPLIFIER_PG_URL = saved;
    }
    expect(isAmplifierError(await loadVectorStore({ type: "faiss" } as never).catch((e: unknown) => e), "UNKNOWN_STORE")).toBe(true);
  });
});
