/**
 * The conformance suite of the GraphStore contract (contracts/GRAPH.md). Every graph store runs it:
 *
 * ```ts
 * describeGraphStoreContract("memory", async () => ({ store: new MemoryGraphStore() }));
 * ```
 *
 * The factory returns a store over EMPTY storage; `cleanup` removes it after the suite disconnected
 * the store. The walk is also checked against a reference breadth-first search on random graphs
 * (fast-check; AMPLIFIER_PROPERTY_RUNS cases, capped by `maxPropertyRuns` for server-backed stores).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { isCypherCapable, MAX_GRAPH_DEPTH, type GraphRelationship, type GraphStore, type SubGraph } from "@amplifier-ts/contracts";
import { propertyRuns } from "./property-runs.js";
import { expectClosed, expectInvalid, expectStoreError } from "./store-contract-helpers.js";

export interface GraphStoreUnderTest {
  store: GraphStore;
  cleanup?: () => Promise<void>;
}

export type GraphStoreFactory = () => Promise<GraphStoreUnderTest>;

export interface GraphStoreContractOptions {
  /** Upper bound of the random-graph cases (each builds a graph in a fresh store). Default: no cap. */
  maxPropertyRuns?: number;
}

/** The contract's walk, written plainly: BFS over undirected edges, the followed relationships, sorted. */
export function referenceNeighbors(
  entities: ReadonlyArray<{ id: string }>,
  relationships: readonly GraphRelationship[],
  start: string,
  depth: number,
  types?: readonly string[],
): { entities: string[]; relationships: string[] } {
  const hops = new Map<string, number>([[start, 0]]);
  const followed = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const at = hops.get(current)!;
    if (at >= depth) continue;
    for (const r of relationships) {
      if (types !== undefined && !types.includes(r.type)) continue;
      if (r.from !== current && r.to !== current) continue;
      followed.add(r.id);
      const other = r.from === current ? r.to : r.from;
      if (!hops.has(other)) {
        hops.set(other, at + 1);
        queue.push(other);
      }
    }
  }
  const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  void entities;
  return {
    entities: [...hops].sort((a, b) => a[1] - b[1] || byId(a[0], b[0])).map(([id]) => id),
    relationships: [...followed].sort(byId),
  };
}

const ids = (sub: SubGraph) => ({ entities: sub.entities.map((e) => e.id), relationships: sub.relationships.map((r) => r.id) });

export function describeGraphStoreContract(name: string, factory: GraphStoreFactory, options: GraphStoreContractOptions = {}): void {
  describe(`GraphStore contract: ${name}`, () => {
    let open: GraphStoreUnderTest[] = [];
    const make = async () => {
      const made = await factory();
      open.push(made);
      return made.store;
    };
    afterEach(async () => {
      for (const made of open) {
        await made.store.disconnect();
        await made.cleanup?.();
      }
      open = [];
    });

    /** a -knows-> b -knows-> c -works_at-> d, and e -knows-> a (an incoming edge of a). */
    async function chain(store: GraphStore): Promise<void> {
      for (const id of ["a", "b", "c", "d", "e"]) await store.addEntity({ id, type: id === "d" ? "company" : "person", properties: { name: id.toUpperCase() } });
      await store.addRelationship({ id: "r1", from: "a", to: "b", type: "knows" });
      await store.addRelationship({ id: "r2", from: "b", to: "c", type: "knows", properties: { since: 2020 } });
      await store.addRelationship({ id: "r3", from: "c", to: "d", type: "works_at" });
      await store.addRelationship({ id: "r4", from: "e", to: "a", type: "knows" });
    }

    it("addEntity stores id, type and JSON properties (default {}); the same id replaces type and properties", async () => {
      const store = await make();
      await store.connect();
      expect(await store.addEntity({ id: "alice", type: "person" })).toEqual({ id: "alice", type: "person", properties: {} });
      expect(await store.getEntity("alice")).toEqual({ id: "alice", type: "person", properties: {} });
      await store.addEntity({ id: "alice", type: "employee", properties: { age: 31, tags: ["x", "y"], nested: { ok: true, none: null }, text: "é ✓ 𝄞" } });
      expect(await store.getEntity("alice")).toEqual({ id: "alice", type: "employee", properties: { age: 31, tags: ["x", "y"], nested: { ok: true, none: null }, text: "é ✓ 𝄞" } });
      expect(await store.getEntity("bob")).toBeUndefined();
    });

    it("addRelationship needs both ends: STORE/ENTITY_NOT_FOUND naming the missing one; nothing is added", async () => {
      const store = await make();
      await store.addEntity({ id: "a", type: "t" });
      const missingTo = await expectStoreError(store.addRelationship({ from: "a", to: "ghost", type: "knows" }), "ENTITY_NOT_FOUND");
      expect(missingTo.path).toBe("relationship.to");
      expect(missingTo.details.given).toBe("ghost");
      const missingFrom = await expectStoreError(store.addRelationship({ from: "ghost", to: "a", type: "knows" }), "ENTITY_NOT_FOUND");
      expect(missingFrom.path).toBe("relationship.from");
      expect((await store.getNeighbors("a")).relationships).toEqual([]);
    });

    it("a relationship without an id gets a unique one; with an id, the same id replaces it", async () => {
      const store = await make();
      for (const id of ["a", "b", "c"]) await store.addEntity({ id, type: "t" });
      const one = await store.addRelationship({ from: "a", to: "b", type: "knows" });
      const two = await store.addRelationship({ from: "a", to: "b", type: "knows" });
      expect(typeof one.id).toBe("string");
      expect(one.id.length).toBeGreaterThan(0);
      expect(one.id).not.toBe(two.id);
      expect(one).toEqual({ id: one.id, from: "a", to: "b", type: "knows", properties: {} });
      await store.addRelationship({ id: one.id, from: "a", to: "c", type: "likes", properties: { w: 1 } });
      const around = await store.getNeighbors("a");
      expect(around.relationships).toEqual(
        [{ id: one.id, from: "a", to: "c", type: "likes", properties: { w: 1 } }, { id: two.id, from: "a", to: "b", type: "knows", properties: {} }].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
    });

    it("getNeighbors walks edges in both directions: depth 1 from a reaches b (outgoing) and e (incoming), the start included", async () => {
      const store = await make();
      await chain(store);
      const sub = await store.getNeighbors("a");
      expect(ids(sub)).toEqual({ entities: ["a", "b", "e"], relationships: ["r1", "r4"] });
      expect(sub.entities[0]).toEqual({ id: "a", type: "person", properties: { name: "A" } });
      expect(sub.relationships[0]).toEqual({ id: "r1", from: "a", to: "b", type: "knows", properties: {} });
    });

    it("depth counts hops: 0 is the start alone, 2 and 3 reach further; entities by hops then id, relationships by id", async () => {
      const store = await make();
      await chain(store);
      expect(ids(await store.getNeighbors("a", { depth: 0 }))).toEqual({ entities: ["a"], relationships: [] });
      expect(ids(await store.getNeighbors("a", { depth: 2 }))).toEqual({ entities: ["a", "b", "e", "c"], relationships: ["r1", "r2", "r4"] });
      expect(ids(await store.getNeighbors("a", { depth: 3 }))).toEqual({ entities: ["a", "b", "e", "c", "d"], relationships: ["r1", "r2", "r3", "r4"] });
      expect(ids(await store.getNeighbors("d", { depth: 2 }))).toEqual({ entities: ["d", "c", "b"], relationships: ["r2", "r3"] });
    });

    it("relationshipTypes limits the walk to those types", async () => {
      const store = await make();
      await chain(store);
      expect(ids(await store.getNeighbors("b", { depth: 5, relationshipTypes: ["knows"] }))).toEqual({ entities: ["b", "a", "c", "e"], relationships: ["r1", "r2", "r4"] });
      expect(ids(await store.getNeighbors("c", { depth: 5, relationshipTypes: ["works_at"] }))).toEqual({ entities: ["c", "d"], relationships: ["r3"] });
      expect(ids(await store.getNeighbors("c", { depth: 5, relationshipTypes: [] }))).toEqual({ entities: ["c"], relationships: [] });
    });

    it("cycles and self-loops end the walk; every entity and relationship appears once", async () => {
      const store = await make();
      for (const id of ["x", "y", "z"]) await store.addEntity({ id, type: "t" });
      await store.addRelationship({ id: "xy", from: "x", to: "y", type: "t" });
      await store.addRelationship({ id: "yz", from: "y", to: "z", type: "t" });
      await store.addRelationship({ id: "zx", from: "z", to: "x", type: "t" });
      await store.addRelationship({ id: "xx", from: "x", to: "x", type: "t" });
      await store.addRelationship({ id: "xy2", from: "y", to: "x", type: "t" });
      expect(ids(await store.getNeighbors("x", { depth: MAX_GRAPH_DEPTH }))).toEqual({ entities: ["x", "y", "z"], relationships: ["xx", "xy", "xy2", "yz", "zx"] });
    });

    it("a relationship is followed when one end is fewer than depth hops away: the edge between two entities at the edge of the walk is not", async () => {
      const store = await make();
      for (const id of ["s", "p", "q"]) await store.addEntity({ id, type: "t" });
      await store.addRelationship({ id: "sp", from: "s", to: "p", type: "t" });
      await store.addRelationship({ id: "sq", from: "s", to: "q", type: "t" });
      await store.addRelationship({ id: "pq", from: "p", to: "q", type: "t" });
      expect(ids(await store.getNeighbors("s", { depth: 1 }))).toEqual({ entities: ["s", "p", "q"], relationships: ["sp", "sq"] });
      expect(ids(await store.getNeighbors("s", { depth: 2 }))).toEqual({ entities: ["s", "p", "q"], relationships: ["pq", "sp", "sq"] });
    });

    it("an unknown start is STORE/ENTITY_NOT_FOUND; a bad depth or type list is INVALID_ARGUMENT", async () => {
      const store = await make();
      await store.addEntity({ id: "a", type: "t" });
      await expectStoreError(store.getNeighbors("ghost"), "ENTITY_NOT_FOUND");
      for (const depth of [-1, 1.5, MAX_GRAPH_DEPTH + 1, Number.NaN, "2"]) await expectInvalid(store.getNeighbors("a", { depth: depth as number }), "options.depth");
      await expectInvalid(store.getNeighbors("a", { relationshipTypes: "knows" as never }), "options.relationshipTypes");
      await expectInvalid(store.getNeighbors("a", { relationshipTypes: [""] }), "options.relationshipTypes[0]");
      await expectInvalid(store.getNeighbors(""), "id");
    });

    it("entities and relationships are validated: INVALID_ARGUMENT names the field", async () => {
      const store = await make();
      await expectInvalid(store.addEntity({ id: "", type: "t" }), "entity.id");
      await expectInvalid(store.addEntity({ id: "a", type: 3 as never }), "entity.type");
      await expectInvalid(store.addEntity({ id: "a", type: "t", properties: [] as never }), "entity.properties");
      await expectInvalid(store.addEntity({ id: "a", type: "t", properties: { when: new Date() } }), "entity.properties.when");
      await expectInvalid(store.addEntity({ id: "a", type: "t", properties: { f: () => 1 } }), "entity.properties.f");
      await expectInvalid(store.addEntity({ id: "a", type: "t", properties: { n: Number.NaN } }), "entity.properties.n");
      await store.addEntity({ id: "a", type: "t" });
      await expectInvalid(store.addRelationship({ from: "a", to: "a", type: "" }), "relationship.type");
      await expectInvalid(store.addRelationship({ id: "", from: "a", to: "a", type: "t" }), "relationship.id");
      expect(await store.getEntity("a")).toEqual({ id: "a", type: "t", properties: {} });
    });

    it("deleteEntity detaches: its relationships go with it, the neighbours stay", async () => {
      const store = await make();
      await chain(store);
      expect(await store.deleteEntity("b")).toBe(true);
      expect(await store.deleteEntity("b")).toBe(false);
      expect(await store.getEntity("b")).toBeUndefined();
      expect(ids(await store.getNeighbors("a", { depth: 5 }))).toEqual({ entities: ["a", "e"], relationships: ["r4"] });
      expect(ids(await store.getNeighbors("c", { depth: 5 }))).toEqual({ entities: ["c", "d"], relationships: ["r3"] });
      // The id is free again, without the old edges.
      await store.addEntity({ id: "b", type: "person" });
      expect(ids(await store.getNeighbors("b"))).toEqual({ entities: ["b"], relationships: [] });
    });

    it("deleteRelationship removes one edge", async () => {
      const store = await make();
      await chain(store);
      expect(await store.deleteRelationship("r2")).toBe(true);
      expect(await store.deleteRelationship("r2")).toBe(false);
      expect(ids(await store.getNeighbors("a", { depth: 5 }))).toEqual({ entities: ["a", "b", "e"], relationships: ["r1", "r4"] });
    });

    it("values are copied: editing what a call returned changes nothing stored", async () => {
      const store = await make();
      const made = await store.addEntity({ id: "a", type: "t", properties: { list: [1] } });
      (made.properties.list as number[]).push(2);
      const got = (await store.getEntity("a"))!;
      (got.properties.list as number[]).push(3);
      expect((await store.getEntity("a"))!.properties).toEqual({ list: [1] });
    });

    it("is not Cypher-capable", async () => {
      const store = await make();
      expect(isCypherCapable(store)).toBe(false);
    });

    it("after disconnect every operation is STORE_CLOSED", async () => {
      const store = await make();
      await store.addEntity({ id: "a", type: "t" });
      await store.disconnect();
      await store.disconnect();
      await expectClosed(store.getNeighbors("a"));
      await expectClosed(store.addEntity({ id: "b", type: "t" }));
      await expectClosed(store.deleteEntity("a"));
      await expectClosed(store.connect());
    });

    it("getNeighbors equals a plain breadth-first search on random graphs (any start, depth and type filter)", async () => {
      const runs = Math.min(propertyRuns(25), options.maxPropertyRuns ?? Number.POSITIVE_INFINITY);
      const graph = fc.record({
        size: fc.integer({ min: 1, max: 8 }),
        edges: fc.array(fc.record({ from: fc.nat(7), to: fc.nat(7), type: fc.constantFrom("a", "b", "c") }), { maxLength: 14 }),
        start: fc.nat(7),
        depth: fc.integer({ min: 0, max: 5 }),
        types: fc.option(fc.subarray(["a", "b", "c"]), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(graph, async ({ size, edges, start, depth, types }) => {
          const store = await make();
          const entities = Array.from({ length: size }, (_, i) => ({ id: `n${i}`, type: "node" }));
          for (const entity of entities) await store.addEntity(entity);
          const relationships: GraphRelationship[] = [];
          for (const [i, edge] of edges.entries()) {
            const r = { id: `e${String(i).padStart(2, "0")}`, from: `n${edge.from % size}`, to: `n${edge.to % size}`, type: edge.type, properties: {} };
            await store.addRelationship(r);
            relationships.push(r);
          }
          const from = `n${start % size}`;
          const got = await store.getNeighbors(from, { depth, ...(types === undefined ? {} : { relationshipTypes: types }) });
          expect(ids(got)).toEqual(referenceNeighbors(entities, relationships, from, depth, types));
          await store.disconnect();
        }),
        { numRuns: runs },
      );
    }, 120_000);
  });
}
