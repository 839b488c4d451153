/* eslint-disable */
/**
 * Generated from contracts/schemas/modules/memory-postgres.config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Config of memory-postgres: one memory shared by every process on the same url and schema.
 */
export interface MemoryPostgresConfig {
  /**
   * Events of delegation context a child session inherits (buildConversationContext). Default 6; env MEMORY_CONTEXT_LIMIT.
   */
  contextLimit?: number;
  /**
   * Sessions kept; creating one more removes the oldest 10 %. Default 1000; env MEMORY_MAX_SESSIONS.
   */
  maxSessions?: number;
  /**
   * Events kept per session; the oldest go first (a ring buffer). Default 500; env MEMORY_MAX_SESSION_EVENTS.
   */
  maxEventsPerSession?: number;
  /**
   * postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test.
   */
  url?: string;
  /**
   * The schema holding the memory tables. Default public.
   */
  schema?: string;
  /**
   * Connections of this process's pool. Default 10.
   */
  poolSize?: number;
}
