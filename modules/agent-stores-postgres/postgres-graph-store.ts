import { randomUUID } from "node:crypto";
import type { GraphEntity, GraphRelationship, GraphStore, NeighborOptions, NewEntity, NewRelationship, SubGraph } from "@amplifier-ts/contracts";
import type { PostgresGraphStoreOptions } from "./agent-store-options.js";
import { checkEntityId, checkNeighborOptions, checkNewEntity, checkNewRelationship, entityNotFound, sortSubGraph } from "@amplifier-ts/contracts";
import { PgStore } from "./pg-store.js";

const MODULE = "agent-stores-postgres/graph";

interface EntityRow {
  id: string;
  type: string;
  properties: Record<string, unknown>;
}

/**
 * A knowledge graph in two tables, `<prefix>_graph_entities` and `<prefix>_graph_relationships`
 * (foreign keys to both ends, ON DELETE CASCADE: deleting an entity detaches it, like
 * Cypher's DETACH DELETE). getNeighbors is one statement — a recursive CTE that walks the edges in both
 * directions (indexes on from_id and to_id) up to `depth` hops, then collects the reached entities
 * and the followed relationships — so it reads one snapshot. Properties are `json` (kept as
 * written). Not Cypher-capable (no Apache AGE): isCypherCapable → false.
 */
export class PostgresGraphStore extends PgStore implements GraphStore {

  constructor(options: PostgresGraphStoreOptions = {}) {
    super(MODULE, options, (schema, prefix) => {
      const entities = `"${schema}"."${prefix}_graph_entities"`;
      const relationships = `"${schema}"."${prefix}_graph_relationships"`;
      return [
        `CREATE TABLE IF NOT EXISTS ${entities} (id text PRIMARY KEY, type text NOT NULL, properties json NOT NULL)`,
        `CREATE TABLE IF NOT EXISTS ${relationships} (id text PRIMARY KEY, from_id text NOT NULL REFERENCES ${entities}(id) ON DELETE CASCADE, to_id text NOT NULL REFERENCES ${entities}(id) ON DELETE CASCADE, type text NOT NULL, properties json NOT NULL)`,
        `CREATE INDEX IF NOT EXISTS "${prefix}_graph_rel_from" ON ${relationships} (from_id)`,
        `CREATE INDEX IF NOT EXISTS "${prefix}_graph_rel_to" ON ${relationships} (to_id)`,
      ];
    });
  }

  async addEntity(entity: NewEntity): Promise<GraphEntity> {
    const checked = checkNewEntity(MODULE, entity);
    await this.db.query(
      `INSERT INTO ${this.#entities} (id, type, properties) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, properties = EXCLUDED.properties`,
      [checked.id, checked.type, JSON.stringify(checked.properties)],
    );
    return checked;
  }

  async getEntity(id: string): Promise<GraphEntity | undefined> {
    checkEntityId(MODULE, id);
    const { rows } = await this.db.query<EntityRow>(`SELECT id, type, properties FROM ${this.#entities} WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : { id: rows[0].id, type: rows[0].type, properties: rows[0].properties };
  }

  async addRelationship(relationship: NewRelationship): Promise<GraphRelationship> {
    const checked = checkNewRelationship(MODULE, relationship, randomUUID);
    await this.db.transaction(async (client) => {
      // FOR SHARE: neither end can be deleted before this commits.
      const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${this.#entities} WHERE id = ANY($1::text[]) FOR SHARE`, [[checked.from, checked.to]]);
      const found = new Set(rows.map((r) => r.id));
      if (!found.has(checked.from)) throw entityNotFound(MODULE, checked.from, "relationship.from");
      if (!found.has(checked.to)) throw entityNotFound(MODULE, checked.to, "relationship.to");
      await client.query(
        `INSERT INTO ${this.#relationships} (id, from_id, to_id, type, properties) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET from_id = EXCLUDED.from_id, to_id = EXCLUDED.to_id, type = EXCLUDED.type, properties = EXCLUDED.properties`,
        [checked.id, checked.from, checked.to, checked.type, JSON.stringify(checked.properties)],
      );
    });
    return checked;
  }

  async getNeighbors(id: string, options?: NeighborOptions): Promise<SubGraph> {
    checkEntityId(MODULE, id);
    const { depth, relationshipTypes } = checkNeighborOptions(MODULE, options);
    const rels = this.#relationships;
    const typeFilter = "($3::text[] IS NULL OR r.type = ANY($3::text[]))";
    const { rows } = await this.db.query<{ entities: Array<EntityRow & { hops: number }>; relationships: Array<{ id: string; from: string; to: string; type: string; properties: Record<string, unknown> }> }>(
      `WITH RECURSIVE walk(id, hops) AS (
         SELECT id, 0 FROM ${this.#entities} WHERE id = $1
         UNION
         SELECT next.other, w.hops + 1
         FROM walk w
         CROSS JOIN LATERAL (
           SELECT r.to_id AS other FROM ${rels} r WHERE r.from_id = w.id AND ${typeFilter}
           UNION ALL
           SELECT r.from_id FROM ${rels} r WHERE r.to_id = w.id AND ${typeFilter}
         ) next
         WHERE w.hops < $2
       ),
       reached AS (SELECT id, min(hops) AS hops FROM walk GROUP BY id),
       inner_ids AS (SELECT id FROM reached WHERE hops < $2)
       SELECT
         (SELECT coalesce(json_agg(json_build_object('id', e.id, 'type', e.type, 'properties', e.properties, 'hops', x.hops)), '[]'::json)
            FROM reached x JOIN ${this.#entities} e ON e.id = x.id) AS entities,
         (SELECT coalesce(json_agg(json_build_object('id', r.id, 'from', r.from_id, 'to', r.to_id, 'type', r.type, 'properties', r.properties)), '[]'::json)
            FROM ${rels} r
           WHERE ${typeFilter} AND (r.from_id IN (SELECT id FROM inner_ids) OR r.to_id IN (SELECT id FROM inner_ids))) AS relationships`,
      [id, depth, relationshipTypes ?? null],
    );
    const { entities, relationships } = rows[0]!;
    if (entities.length === 0) throw entityNotFound(MODULE, id);
    return sortSubGraph(entities, relationships);
  }

  async deleteEntity(id: string): Promise<boolean> {
    checkEntityId(MODULE, id);
    const result = await this.db.query(`DELETE FROM ${this.#entities} WHERE id = $1`, [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async deleteRelationship(id: string): Promise<boolean> {
    checkEntityId(MODULE, id);
    const result = await this.db.query(`DELETE FROM ${this.#relationships} WHERE id = $1`, [id]);
    return (result.rowCount ?? 0) > 0;
  }

  get #entities(): string {
    return this.db.table("graph_entities");
  }

  get #relationships(): string {
    return this.db.table("graph_relationships");
  }
}
