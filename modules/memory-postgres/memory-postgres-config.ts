import { memoryLimitFields, positiveIntegerOption } from "@amplifier-ts/memory-base";
import { z } from "zod";

/** Config of memory-postgres: the limits plus where the server is. JSON Schema: schemas/ in this package (copy at contracts/schemas/modules/memory-postgres.config.schema.json). */
export const memoryPostgresConfigSchema = z
  .strictObject({
    ...memoryLimitFields,
    url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/).optional().meta({ description: "The schema holding the memory tables. Default public." }),
    poolSize: positiveIntegerOption("Connections of this process's pool. Default 10.", 1000).optional(),
  })
  .meta({ id: "MemoryPostgresConfig", title: "MemoryPostgresConfig", description: "Config of memory-postgres: one memory shared by every process on the same url and schema." });

export type MemoryPostgresOptions = z.infer<typeof memoryPostgresConfigSchema>;

/** The config as written in amplifier.config.json (every field optional). */
export type MemoryPostgresConfig = z.input<typeof memoryPostgresConfigSchema>;
