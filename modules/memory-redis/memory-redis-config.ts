import { memoryLimitFields, positiveIntegerOption } from "@amplifier-ts/memory-base";
import { z } from "zod";

/** Config of memory-redis: the limits plus where the server is. JSON Schema: schemas/ in this package (copy at contracts/schemas/modules/memory-redis.config.schema.json). */
export const memoryRedisConfigSchema = z
  .strictObject({
    ...memoryLimitFields,
    url: z.string().regex(/^rediss?(\+cluster)?:\/\//).optional().meta({ description: "redis://host:port[/db], or redis+cluster://host:port,host:port for a Redis Cluster (every key of the memory in one slot). Default AMPLIFIER_REDIS_URL, else redis://127.0.0.1:6379." }),
    keyPrefix: z.string().min(1).max(128).optional().meta({ description: "Prefix of every key. Default amplifier:memory:." }),
    connectTimeoutMs: positiveIntegerOption("How long connecting may take, in ms. Default 2000.", 600_000).optional(),
  })
  .meta({ id: "MemoryRedisConfig", title: "MemoryRedisConfig", description: "Config of memory-redis: one memory shared by every process on the same url and key prefix." });

export type MemoryRedisOptions = z.infer<typeof memoryRedisConfigSchema>;

/** The config as written in amplifier.config.json (every field optional). */
export type MemoryRedisConfig = z.input<typeof memoryRedisConfigSchema>;
