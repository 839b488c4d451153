import { z } from "zod";
import { contextOptionsShape } from "@amplifier-ts/context-manager";

/**
 * context-persistent's config: the shared context options plus where and how the session is
 * stored. The module validates with it; schemas/context-persistent.config.schema.json is emitted
 * from it for editors (`npm run schemas`); the drift test runs both over the same fixtures.
 */
export const persistentOptionsSchema = z
  .object({
    ...contextOptionsShape,
    storagePath: z.string().min(1).default(".amplifier/sessions").meta({ description: "Directory of the JSONL session files." }),
    sessionId: z
      .string()
      .regex(/^(?!\.)[A-Za-z0-9._-]{1,128}$/)
      .optional()
      .meta({ description: "Session to open; defaults to the coordinator's session id." }),
    strict: z.boolean().default(false).meta({ description: "Fail at mount when the storage cannot be used, instead of falling back to memory." }),
    fsync: z
      .enum(["always", "batch", "never"])
      .default("always")
      .meta({ description: "always: each addMessage is on disk when it resolves; batch: concurrent appends share one fsync (same guarantee, more throughput); never: the OS decides (fastest, a crash may lose recent messages)." }),
    store: z
      .looseObject({
        type: z
          .string()
          .min(1)
          .meta({ description: "A registered history store type — built in: memory, jsonl, postgres, redis, hybrid; a package may register more. Its options sit beside it." }),
      })
      .optional()
      .meta({ description: "Which HistoryStore to use (default: JSONL under storagePath). The type is looked up in the history store registry when the module mounts (UNKNOWN_STORE lists the registered types)." }),
  })
  .strict()
  .refine((o) => o.compactTarget <= o.compactThreshold, {
    message: "compactTarget must be ≤ compactThreshold",
    path: ["compactTarget"],
  })
  .meta({ title: "ContextPersistentConfig", description: "Config of the built-in context-persistent module (history kept in a HistoryStore; JSONL files by default)." });
