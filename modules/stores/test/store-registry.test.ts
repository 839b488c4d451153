import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUILT_IN_HISTORY_STORES, builtInHistoryStores, defineHistoryStore, HistoryStoreRegistry, MemoryStore } from "../index.js";

const kept = defineHistoryStore({ type: "kept-here", description: "a memory store under another name", options: z.strictObject({ limit: z.number().int().positive().default(3) }), create: () => new MemoryStore() });

describe("history store registry", () => {
  it("lists the built-in types in the built-in list's order, postgres and redis as package references", () => {
    expect(builtInHistoryStores.types()).toEqual(["memory", "jsonl", "postgres", "redis", "hybrid"]);
    expect(BUILT_IN_HISTORY_STORES).toHaveLength(5);
    expect(builtInHistoryStores.reference("postgres")?.package).toBe("@amplifier-ts/store-postgres");
    expect(builtInHistoryStores.definition("postgres")).toBeUndefined();
  });

  it("a child registry reads through to its parent; its own types stay its own; unregister removes one", () => {
    const child = new HistoryStoreRegistry([kept], { parent: builtInHistoryStores });
    expect(child.types()).toEqual([...builtInHistoryStores.types(), "kept-here"]);
    expect(child.create({ type: "kept-here" })).toBeInstanceOf(MemoryStore);
    expect(builtInHistoryStores.has("kept-here")).toBe(false);
    const unregister = child.register(defineHistoryStore({ ...kept, type: "second" }));
    expect(child.has("second")).toBe(true);
    unregister();
    expect(child.has("second")).toBe(false);
  });

  it("refuses a type registered twice (also over the parent's) and an entry that is neither a definition nor a reference", () => {
    const child = new HistoryStoreRegistry([], { parent: builtInHistoryStores });
    expect(() => child.register({ ...kept, type: "jsonl" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ given: "jsonl" }) }));
    expect(() => child.register({ type: "Bad Name", package: "x" })).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => child.register({ type: "no-create" } as never)).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("options are parsed by the type's schema (defaults applied) before create sees them; a bad one names its path", () => {
    let seen: unknown;
    const registry = new HistoryStoreRegistry([defineHistoryStore({ ...kept, create: (options) => ((seen = options), new MemoryStore()) })]);
    registry.create({ type: "kept-here" });
    expect(seen).toEqual({ limit: 3 });
    expect(() => registry.create({ type: "kept-here", limit: 0 }, { path: "session.store" })).toThrowError(
      expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "session.store.limit" }) }),
    );
  });

  it("an unknown type is UNKNOWN_STORE listing the registered types, with a did-you-mean", () => {
    expect(() => builtInHistoryStores.create({ type: "jsnol" })).toThrowError(
      expect.objectContaining({ code: "UNKNOWN_STORE", details: expect.objectContaining({ path: "store.type", expected: "one of memory, jsonl, postgres, redis, hybrid", hint: 'did you mean "jsonl"?' }) }),
    );
  });
});
