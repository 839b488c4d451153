import { createError } from "../errors.js";
import { findNonJsonValue } from "../validators/json-value.js";
import { storeErrors } from "./store-errors.js";

/**
 * The GraphStore contract (contracts/GRAPH.md): a knowledge graph of typed entities and typed,
 * directed relationships with JSON properties. Implementations: memory in
 * @amplifier-ts/module-store-graph, postgres (recursive CTE) in @amplifier-ts/agent-stores-postgres.
 * Conformance suite: `describeGraphStoreContract` in @amplifier-ts/testing.
 */
export type GraphProperties = Record<string, unknown>;

export interface GraphEntity {
  id: string;
  type: string;
  properties: GraphProperties;
}

export interface GraphRelationship {
  id: string;
  /** The entity the relationship starts at. */
  from: string;
  /** The entity it points to. */
  to: string;
  type: string;
  properties: GraphProperties;
}

export interface NewEntity {
  id: string;
  type: string;
  properties?: GraphProperties;
}

export interface NewRelationship {
  /** Default: a random UUID. */
  id?: string;
  from: string;
  to: string;
  type: string;
  properties?: GraphProperties;
}

export interface NeighborOptions {
  /** Hops from the start entity, 0-MAX_GRAPH_DEPTH. Default 1. */
  depth?: number;
  /** Follow only relationships of these types. Default: every type. */
  relationshipTypes?: readonly string[];
}

/** What getNeighbors returns: entities sorted by hops from the start, then id (the start first); relationships by id. */
export interface SubGraph {
  entities: GraphEntity[];
  relationships: GraphRelationship[];
}

export interface GraphStore {
  readonly kind: string;
  connect(): Promise<void>;
  /** Final: every operation afterwards is STORE_CLOSED. Idempotent. */
  disconnect(): Promise<void>;
  /** Inserts, or replaces the type and properties of the entity with this id. */
  addEntity(entity: NewEntity): Promise<GraphEntity>;
  getEntity(id: string): Promise<GraphEntity | undefined>;
  /** Inserts (or replaces, by id) a relationship; both ends must exist (STORE/ENTITY_NOT_FOUND otherwise). */
  addRelationship(relationship: NewRelationship): Promise<GraphRelationship>;
  /**
   * Breadth-first walk from `id` over relationships in either direction, up to `depth` hops: the
   * entities reached (the start included) and every followed relationship (one touching an entity
   * fewer than `depth` hops away). STORE/ENTITY_NOT_FOUND when `id` does not exist.
   */
  getNeighbors(id: string, options?: NeighborOptions): Promise<SubGraph>;
  /** Removes the entity and every relationship touching it (DETACH DELETE); true when it existed. */
  deleteEntity(id: string): Promise<boolean>;
  /** Removes one relationship; true when it existed. */
  deleteRelationship(id: string): Promise<boolean>;
}

/** A store that can also run Cypher (Apache AGE, Neo4j). None of ours can. */
export interface CypherCapable {
  cypher(query: string, parameters?: Record<string, unknown>): Promise<unknown[]>;
}

/** Whether `store` runs Cypher: it has a `cypher` method. False for the memory and PostgreSQL stores, so code that branches on it behaves the same in tests and production. */
export function isCypherCapable(store: unknown): store is GraphStore & CypherCapable {
  return typeof store === "object" && store !== null && typeof (store as { cypher?: unknown }).cypher === "function";
}

export const MAX_GRAPH_DEPTH = 32;
export const DEFAULT_GRAPH_DEPTH = 1;
const NAME_MAX = 256;

function invalid(store: string, path: string, expected: string, given: unknown): never {
  throw createError("INVALID_ARGUMENT", `${path}: expected ${expected}`, { module: store, path, expected, given });
}

function checkName(store: string, path: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > NAME_MAX) invalid(store, path, `a string of 1-${NAME_MAX} characters`, value);
  return value;
}

function checkProperties(store: string, path: string, value: unknown): GraphProperties {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) invalid(store, path, "an object of JSON values", value);
  const issue = findNonJsonValue(value, path);
  if (issue !== undefined) invalid(store, issue.path, issue.expected, issue.given);
  // A copy through JSON: what is stored is what JSON holds (undefined properties dropped), in every backend alike.
  return JSON.parse(JSON.stringify(value)) as GraphProperties;
}

export function checkEntityId(store: string, id: unknown, path = "id"): string {
  return checkName(store, path, id);
}

/** A validated copy of the entity (properties default {}); INVALID_ARGUMENT naming the bad field. */
export function checkNewEntity(store: string, entity: unknown): GraphEntity {
  if (typeof entity !== "object" || entity === null) invalid(store, "entity", "{ id, type, properties? }", entity);
  const { id, type, properties } = entity as Record<string, unknown>;
  return { id: checkName(store, "entity.id", id), type: checkName(store, "entity.type", type), properties: checkProperties(store, "entity.properties", properties) };
}

/** A validated copy of the relationship, its id filled in by `newId` when absent. */
export function checkNewRelationship(store: string, relationship: unknown, newId: () => string): GraphRelationship {
  if (typeof relationship !== "object" || relationship === null) invalid(store, "relationship", "{ id?, from, to, type, properties? }", relationship);
  const { id, from, to, type, properties } = relationship as Record<string, unknown>;
  return {
    id: id === undefined ? newId() : checkName(store, "relationship.id", id),
    from: checkName(store, "relationship.from", from),
    to: checkName(store, "relationship.to", to),
    type: checkName(store, "relationship.type", type),
    properties: checkProperties(store, "relationship.properties", properties),
  };
}

/** depth (default 1) and the type filter (undefined: every type), validated. */
export function checkNeighborOptions(store: string, options: unknown): { depth: number; relationshipTypes: string[] | undefined } {
  if (options === undefined) return { depth: DEFAULT_GRAPH_DEPTH, relationshipTypes: undefined };
  if (typeof options !== "object" || options === null) invalid(store, "options", "{ depth?, relationshipTypes? }", options);
  const { depth = DEFAULT_GRAPH_DEPTH, relationshipTypes } = options as NeighborOptions;
  if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 0 || depth > MAX_GRAPH_DEPTH) {
    invalid(store, "options.depth", `an integer from 0 to ${MAX_GRAPH_DEPTH}`, depth);
  }
  if (relationshipTypes === undefined) return { depth, relationshipTypes: undefined };
  if (!Array.isArray(relationshipTypes)) invalid(store, "options.relationshipTypes", "an array of relationship type names", relationshipTypes);
  return { depth, relationshipTypes: relationshipTypes.map((t, i) => checkName(store, `options.relationshipTypes[${i}]`, t)) };
}

export function entityNotFound(store: string, id: string, path = "id") {
  return storeErrors.create("ENTITY_NOT_FOUND", `no entity ${JSON.stringify(id)}`, { module: store, path, given: id, expected: "the id of an entity added with addEntity()" });
}

/** The contract's order: entities by hops then id, relationships by id. */
export function sortSubGraph(entities: Array<GraphEntity & { hops: number }>, relationships: GraphRelationship[]): SubGraph {
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    entities: [...entities].sort((a, b) => a.hops - b.hops || byId(a, b)).map(({ id, type, properties }) => ({ id, type, properties })),
    relationships: [...relationships].sort(byId),
  };
}
