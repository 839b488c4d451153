import type { ModuleMeta } from "@amplifier-ts/contracts";
import { formatIssues, issuesError } from "@amplifier-ts/contracts";
import { formatPath, type PathSegment } from "../config/format-path.js";
import { configValidator } from "./config-validator.js";

export interface ModuleConfigLocation {
  /** The module as referenced in the config. */
  module: string;
  /** Where the config sits in the file, e.g. ["session", "context", "config"]. */
  at: readonly PathSegment[];
  file?: string;
}

/**
 * Validate a module's config against its `meta.configSchema` before mount() runs. Throws
 * INVALID_MODULE_CONFIG with every problem (details.errors), each naming the module, the path in
 * the config file, what was given and what was expected; unknown keys get a "did you mean" from
 * the schema's property names (`max_tokens` → `maxTokens`). A module without a schema accepts
 * any config: checking it is then the module's own business.
 */
export function validateModuleConfig(meta: ModuleMeta | undefined, config: unknown, where: ModuleConfigLocation): void {
  if (meta?.configSchema === undefined) return;
  const schema = configValidator(meta.configSchema);
  const result = schema.safeParse(config);
  if (result.success) return;
  const issues = formatIssues(result.error.issues, config, formatPath(where.at), schema, "document");
  throw issuesError("INVALID_MODULE_CONFIG", issues, { wording: "document", details: { module: where.module, ...(where.file === undefined ? {} : { file: where.file }) } });
}
