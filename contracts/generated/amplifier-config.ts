/* eslint-disable */
/**
 * Generated from contracts/schemas/amplifier-config.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * A built-in name (context-simple), a path relative to this file (./my-module.ts; .js, .mjs or .ts), or an npm package name.
 */
export type ModuleSpecifier = string;

/**
 * amplifier.config.json: which modules mount where, with what config. See contracts/MODULES.md.
 */
export interface AmplifierConfig {
  /**
   * Path or URL of this schema, for editors.
   */
  $schema?: string;
  session: SessionConfig;
  /**
   * Model providers, mounted at the providers point under their name.
   */
  providers?: NamedModuleRef[];
  /**
   * Tools, mounted at the tools point under their name.
   */
  tools?: NamedModuleRef[];
  /**
   * Hook modules; they register their handlers on coordinator.hooks.
   */
  hooks?: ModuleRef[];
  /**
   * The session's embedder (embedder-local, embedder-openai or a third party's): mounted before the context, it registers the "embedder" capability (contracts/search.ts), so the context's search and recall rank by vectors beside BM25. With optional: true a failure leaves search lexical. See contracts/MODULES.md.
   */
  embedder?: ModuleRef;
  /**
   * The agent's memory (memory-local, memory-null, memory-postgres, memory-redis or a third party's), mounted at the memory point; over the MEMORY_* environment variables. See contracts/MEMORY.md.
   */
  memory?: ModuleRef;
  stores?: StoresConfig;
  /**
   * How long each module's mount() may take, in milliseconds (at most 2^31-1, Node's timer limit). Default 30000.
   */
  mountTimeoutMs?: number;
}
/**
 * The required modules of a session: a failure to load or mount them stops the session.
 */
export interface SessionConfig {
  orchestrator?: SessionModuleRef;
  context: SessionModuleRef;
}
/**
 * A required module (context, orchestrator).
 */
export interface SessionModuleRef {
  module: ModuleSpecifier;
  config?: ModuleConfig;
  /**
   * Name shown in reports and events.
   */
  name?: string;
}
/**
 * Passed to the module's mount(); validated against the module's meta.configSchema when it has one.
 */
export interface ModuleConfig {
  [k: string]: unknown;
}
export interface NamedModuleRef {
  module: ModuleSpecifier;
  config?: ModuleConfig;
  /**
   * The mount name; unique within its list.
   */
  name: string;
  /**
   * true: a failure to load or mount this module is reported (module:mount_failed) and the module skipped; false (default): it fails the session.
   */
  optional?: boolean;
}
export interface ModuleRef {
  module: ModuleSpecifier;
  config?: ModuleConfig;
  /**
   * Name shown in reports and events.
   */
  name?: string;
  /**
   * true: a failure to load or mount this module is reported (module:mount_failed) and the module skipped; false (default): it fails the session.
   */
  optional?: boolean;
}
/**
 * The stores a session's tools reach as coordinator capabilities (blobs, graph, tasks, vectors), each a module mounted after the memory and before providers and tools.
 */
export interface StoresConfig {
  /**
   * The session's blob store, offered as the "blobs" capability: { "module": "store-blobs", "config": { "type": "file" (default), "memory" or "postgres" } } or a third party's module. See contracts/BLOBS.md.
   */
  blobs?: ModuleRef;
  /**
   * The session's graph store, offered as the "graph" capability: { "module": "store-graph", "config": { "type": "memory" or "postgres" } } or a third party's module. See contracts/GRAPH.md.
   */
  graph?: ModuleRef;
  /**
   * The session's task store, offered as the "tasks" capability: { "module": "store-tasks", "config": { "type": "memory" or "postgres" } } or a third party's module. See contracts/TASKS.md.
   */
  tasks?: ModuleRef;
  /**
   * The session's vector store, offered as the "vectors" capability: { "module": "store-vectors", "config": { "type": "memory" or "postgres" (pgvector) } } or a third party's module. See contracts/MODULES.md.
   */
  vectors?: ModuleRef;
}
