import { z } from "zod";

/**
 * read-stored-result's config: how much one call returns. The module validates with it;
 * schemas/read-stored-result.config.schema.json is emitted from it for editors (`npm run schemas`).
 */
export const readStoredResultConfigSchema = z
  .strictObject({
    defaultLength: z.number().int().min(1).max(1_000_000).default(8_000).meta({ description: "Characters a page holds when the call gives no length. Default 8000." }),
    maxLength: z.number().int().min(1).max(1_000_000).default(32_000).meta({ description: "The most characters one page may hold (a larger length is refused, so the model asks again instead of flooding its window). Default 32000." }),
    maxMatches: z.number().int().min(1).max(10_000).default(50).meta({ description: "The most matching lines a search returns (it says where to continue). Default 50." }),
    maxLineChars: z.number().int().min(20).max(100_000).default(400).meta({ description: "A matching line longer than this is shown around its first match. Default 400." }),
  })
  .refine((o) => o.defaultLength <= o.maxLength, { message: "defaultLength must be ≤ maxLength", path: ["defaultLength"] })
  .meta({ title: "ReadStoredResultConfig", description: "Config of the built-in read-stored-result tool module (the read_stored_result tool: pages and searches inputs the context manager spilled)." });

export type ReadStoredResultOptions = z.output<typeof readStoredResultConfigSchema>;
export type ReadStoredResultConfig = z.input<typeof readStoredResultConfigSchema>;
