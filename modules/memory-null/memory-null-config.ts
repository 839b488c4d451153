import { memoryLimitFields } from "@amplifier-ts/memory-base";
import { z } from "zod";

/** Config of memory-null: memory-local's limits, accepted (so either module takes the same config) and ignored but contextLimit. */
export const memoryNullConfigSchema = z
  .strictObject(memoryLimitFields)
  .meta({ id: "MemoryNullConfig", title: "MemoryNullConfig", description: "Config of memory-null: memory-local's limits, accepted and ignored but contextLimit." });

export type MemoryNullOptions = z.infer<typeof memoryNullConfigSchema>;
