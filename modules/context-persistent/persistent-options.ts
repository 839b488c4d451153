import { z } from "zod";
import { contextOptionsShape } from "@amplifier-ts/context-manager";

/**
 * zod mirror of contracts/schemas/modules/context-persistent.config.schema.json (the source of
 * truth; the drift test runs both over the same fixtures): the shared context options plus where
 * and how the session is stored.
 */
export const persistentOptionsSchema = z
  .object({
    ...contextOptionsShape,
    storagePath: z.string().min(1).default(".amplifier/sessions"),
    sessionId: z.string().regex(/^(?!\.)[A-Za-z0-9._-]{1,128}$/).optional(),
    strict: z.boolean().default(false),
    fsync: z.enum(["always", "batch", "never"]).default("always"),
    store: z.looseObject({ type: z.enum(["jsonl", "memory", "postgres", "redis", "hybrid"]) }).optional(),
  })
  .strict()
  .refine((o) => o.compactTarget <= o.compactThreshold, {
    message: "compactTarget must be ≤ compactThreshold",
    path: ["compactTarget"],
  });
