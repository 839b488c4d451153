import type { RetryPolicy } from "@amplifier-ts/stores";
import { z } from "zod";

/** The options of `{ "type": "postgres" }` and of `new PostgresStore(options)`. */
export interface PostgresStoreOptions {
  /** Default: env AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test. */
  url?: string;
  /** Default "public"; created by the migrations when missing. */
  schema?: string;
  /** Default "amplifier_messages"; `<table>_sessions` and `<table>_migrations` sit beside it. */
  table?: string;
  /** Backoff for transient failures (connection lost, server restarting); default 8 tries, 50 ms → 2 s. */
  retry?: Partial<RetryPolicy>;
  /** Connections in the shared pool of this URL (taken from the first store on the URL; default 10). */
  poolSize?: number;
  /**
   * How long the store tries to reach the server the first time — each connection attempt, and
   * connect + migrations with their retries together — before STORAGE_UNAVAILABLE (context-persistent
   * then falls back to memory, or fails with `strict`). Default 3000 ms. Each later connection of the
   * pool is bounded by it too (taken from the first store on the URL).
   */
  connectTimeoutMs?: number;
}

/**
 * The config's shape, checked when a store is built from a config. Loose: keys it does not know
 * are ignored, as they always were; the store checks the values further when it opens.
 */
export const postgresStoreOptionsSchema = z.looseObject({
  url: z.string().optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
  schema: z.string().optional().meta({ description: 'Default "public"; created when missing.' }),
  table: z.string().optional().meta({ description: 'Default "amplifier_messages".' }),
  retry: z.looseObject({ attempts: z.number().optional(), baseDelayMs: z.number().optional(), maxDelayMs: z.number().optional() }).optional(),
  poolSize: z.number().optional().meta({ description: "Connections in the shared pool of this URL. Default 10." }),
  connectTimeoutMs: z.number().optional().meta({ description: "How long the first connection may take. Default 3000 ms." }),
});
