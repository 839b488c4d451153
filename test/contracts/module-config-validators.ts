import { storeBlobsEditorSchema } from "../../modules/store-blobs/blob-store-types.js";
import { storeGraphEditorSchema } from "../../modules/store-graph/graph-store-types.js";
import { storeTasksEditorSchema } from "../../modules/store-tasks/task-store-types.js";
import { storeVectorsEditorSchema } from "../../modules/store-vectors/vector-store-types.js";
import type { ZodType } from "zod";
import { contextOptionsSchema } from "../../modules/context-manager/context-options.js";
import { persistentOptionsSchema } from "../../modules/context-persistent/persistent-options.js";
import { memoryLocalConfigSchema } from "../../modules/memory-local/memory-local-config.js";
import { memoryPostgresConfigSchema } from "../../modules/memory-postgres/memory-postgres-config.js";
import { memoryRedisConfigSchema } from "../../modules/memory-redis/memory-redis-config.js";
import { memoryToolConfigSchema } from "../../modules/memory-tool/memory-tool-options.js";
import { readStoredResultConfigSchema } from "../../modules/read-stored-result/read-options.js";

/**
 * zod sources of the built-in modules' config schemas (each emitted into its package, copied to
 * contracts/schemas/modules/), keyed like
 * CONTRACT_VALIDATORS. They live here, not in contracts/validators/registry.ts, because contracts
 * import no module; the drift harness merges both registries.
 *
 * A mirror may be stricter than its schema only in ways JSON Schema cannot state (context options
 * refuse compactTarget > compactThreshold); the shared fixtures stay clear of such cases.
 */
export const MODULE_CONFIG_VALIDATORS: Record<string, ZodType> = {
  "modules/context-simple.config": contextOptionsSchema,
  "modules/context-persistent.config": persistentOptionsSchema,
  "modules/memory-local.config": memoryLocalConfigSchema,
  "modules/memory-postgres.config": memoryPostgresConfigSchema,
  "modules/memory-redis.config": memoryRedisConfigSchema,
  "modules/memory-tool.config": memoryToolConfigSchema,
  "modules/read-stored-result.config": readStoredResultConfigSchema,
  // A store module's JSON Schema is emitted from its editor schema: every built-in type, the driver packages loaded.
  "modules/store-blobs.config": await storeBlobsEditorSchema(),
  "modules/store-graph.config": await storeGraphEditorSchema(),
  "modules/store-tasks.config": await storeTasksEditorSchema(),
  "modules/store-vectors.config": await storeVectorsEditorSchema(),
};
