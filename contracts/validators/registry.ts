import type { ZodType } from "zod";
import { memoryEventJsonSchema } from "../memory/memory-schemas.js";
import { amplifierConfigSchema } from "./amplifier-config.js";
import { hookResultSchema } from "./hook-result.js";
import { messageSchema } from "./message.js";
import { providerInfoSchema } from "./provider-info.js";

/**
 * The zod source of each JSON Schema in contracts/schemas/, keyed by the schema's path without
 * `.schema.json` (`message` for message.schema.json, `modules/x.config` for
 * modules/x.config.schema.json).
 *
 * test/contracts/schema-zod-drift.test.ts lists the schemas directory and fails for a schema
 * that has no entry here (or in its module-config registry) or no fixtures, so a new schema can
 * never go unchecked. Module config mirrors live with their modules (contracts import no module)
 * and are registered in test/contracts/module-config-validators.ts.
 */
export const CONTRACT_VALIDATORS = {
  message: messageSchema,
  "hook-result": hookResultSchema,
  "provider-info": providerInfoSchema,
  "amplifier-config": amplifierConfigSchema,
  "memory-event": memoryEventJsonSchema,
} as const satisfies Record<string, ZodType>;

export type ContractSchemaName = keyof typeof CONTRACT_VALIDATORS;
