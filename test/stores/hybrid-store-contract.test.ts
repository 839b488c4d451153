import { afterAll } from "vitest";
import { describeHistoryStoreContract } from "../../testing/history-store-contract.js";
import { createHistoryStore } from "../../src/modules/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

/**
 * The HistoryStore contract on the hybrid store over the real servers: Redis (hot, capped at
 * recentN) + PostgreSQL (cold, the record); each case under its own key prefix and schema.
 */
const schemas: string[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await dropSchemas(...schemas);
  await dropPrefixes(...prefixes);
});

describeHistoryStoreContract("hybrid (redis + postgres)", async () => {
  const schema = testSchemaName();
  const keyPrefix = testKeyPrefix();
  schemas.push(schema);
  prefixes.push(keyPrefix);
  const make = () =>
    createHistoryStore({ type: "hybrid", recentN: 50, hot: { type: "redis", url: REDIS_URL, keyPrefix }, cold: { type: "postgres", url: PG_URL, schema } });
  return { store: make(), reopen: async () => make(), cleanup: async () => undefined, storage: { schema, keyPrefix } };
}, { attachments: true });
