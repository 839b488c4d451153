import { randomUUID } from "node:crypto";
import type { GraphEntity, GraphRelationship, GraphStore, NeighborOptions, NewEntity, NewRelationship, SubGraph } from "@amplifier-ts/contracts";
import { checkEntityId, checkNeighborOptions, checkNewEntity, checkNewRelationship, createError, entityNotFound, sortSubGraph } from "@amplifier-ts/contracts";

const MODULE = "store-graph/memory";

/**
 * A graph in this process: entities and relationships in two maps, plus an adjacency index
 * (entity id → ids of the relationships touching it) so a walk visits each relationship of a
 * reached entity once instead of scanning them all per hop. getNeighbors is a breadth-first walk
 * over undirected edges, up to `depth` hops. Not Cypher-capable (isCypherCapable → false).
 * Values are copied in and out: a caller editing what it got changes nothing stored.
 */
export class MemoryGraphStore implements GraphStore {
  readonly kind = "memory";
  readonly #entities = new Map<string, GraphEntity>();
  readonly #relationships = new Map<string, GraphRelationship>();
  readonly #touching = new Map<string, Set<string>>();
  #closed = false;

  async connect(): Promise<void> {
    this.#open();
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
  }

  async addEntity(entity: NewEntity): Promise<GraphEntity> {
    this.#open();
    const checked = checkNewEntity(MODULE, entity);
    this.#entities.set(checked.id, checked);
    return structuredClone(checked);
  }

  async getEntity(id: string): Promise<GraphEntity | undefined> {
    this.#open();
    const found = this.#entities.get(checkEntityId(MODULE, id));
    return found === undefined ? undefined : structuredClone(found);
  }

  async addRelationship(relationship: NewRelationship): Promise<GraphRelationship> {
    this.#open();
    const checked = checkNewRelationship(MODULE, relationship, randomUUID);
    if (!this.#entities.has(checked.from)) throw entityNotFound(MODULE, checked.from, "relationship.from");
    if (!this.#entities.has(checked.to)) throw entityNotFound(MODULE, checked.to, "relationship.to");
    this.#detach(checked.id);
    this.#relationships.set(checked.id, checked);
    for (const end of [checked.from, checked.to]) {
      let set = this.#touching.get(end);
      if (set === undefined) this.#touching.set(end, (set = new Set()));
      set.add(checked.id);
    }
    return structuredClone(checked);
  }

  async getNeighbors(id: string, options?: NeighborOptions): Promise<SubGraph> {
    this.#open();
    checkEntityId(MODULE, id);
    const { depth, relationshipTypes } = checkNeighborOptions(MODULE, options);
    if (!this.#entities.has(id)) throw entityNotFound(MODULE, id);
    const types = relationshipTypes === undefined ? undefined : new Set(relationshipTypes);
    const hops = new Map<string, number>([[id, 0]]);
    const followed = new Map<string, GraphRelationship>();
    let frontier = [id];
    for (let hop = 0; hop < depth && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const current of frontier) {
        for (const relationshipId of this.#touching.get(current) ?? []) {
          const relationship = this.#relationships.get(relationshipId)!;
          if (types !== undefined && !types.has(relationship.type)) continue;
          followed.set(relationship.id, relationship);
          const other = relationship.from === current ? relationship.to : relationship.from;
          if (!hops.has(other)) {
            hops.set(other, hop + 1);
            next.push(other);
          }
        }
      }
      frontier = next;
    }
    const entities = [...hops].map(([entityId, n]) => ({ ...structuredClone(this.#entities.get(entityId)!), hops: n }));
    return sortSubGraph(entities, [...followed.values()].map((r) => structuredClone(r)));
  }

  async deleteEntity(id: string): Promise<boolean> {
    this.#open();
    checkEntityId(MODULE, id);
    if (!this.#entities.delete(id)) return false;
    for (const relationshipId of [...(this.#touching.get(id) ?? [])]) this.#detach(relationshipId);
    this.#touching.delete(id);
    return true;
  }

  async deleteRelationship(id: string): Promise<boolean> {
    this.#open();
    checkEntityId(MODULE, id, "id");
    return this.#detach(id);
  }

  #detach(relationshipId: string): boolean {
    const relationship = this.#relationships.get(relationshipId);
    if (relationship === undefined) return false;
    this.#relationships.delete(relationshipId);
    for (const end of [relationship.from, relationship.to]) {
      const set = this.#touching.get(end);
      set?.delete(relationshipId);
      if (set?.size === 0) this.#touching.delete(end);
    }
    return true;
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the graph store has been disconnected", { module: MODULE });
  }
}
