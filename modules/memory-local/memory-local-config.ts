import { memoryLimitFields } from "@amplifier-ts/memory-base";
import { z } from "zod";

/** Config of memory-local: the limits only (contracts/MEMORY.md). JSON Schema: schemas/ in this package (copy at contracts/schemas/modules/memory-local.config.schema.json). */
export const memoryLocalConfigSchema = z
  .strictObject(memoryLimitFields)
  .meta({ id: "MemoryLocalConfig", title: "MemoryLocalConfig", description: "Config of memory-local (and memory-null, which accepts and ignores the limits)." });

export type MemoryLocalOptions = z.infer<typeof memoryLocalConfigSchema>;

/** The config as written in amplifier.config.json (every field optional). */
export type MemoryLocalConfig = z.input<typeof memoryLocalConfigSchema>;
