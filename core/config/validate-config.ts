import type { ValidateFunction } from "ajv";
import type { AmplifierConfig } from "@amplifier-ts/contracts";
import configSchema from "@amplifier-ts/contracts/schemas/amplifier-config.schema.json" with { type: "json" };
import { createAjv } from "./create-ajv.js";
import { issuesError } from "./issues-error.js";
import { schemaIssues, type SchemaIssue } from "./schema-issues.js";
import { formatPath } from "./format-path.js";

/** Lists of named modules: their names are mount names and must be unique within the list. */
const NAMED_LISTS = ["providers", "tools"] as const;

let validateShape: ValidateFunction | undefined;

/**
 * Check a config object against contracts/schemas/amplifier-config.schema.json plus the rules a
 * JSON Schema cannot say (unique names). Throws CONFIG_INVALID listing every problem; returns the
 * same object, typed. Module configs are checked later, against each module's own schema, once
 * the module is loaded (core/loader).
 */
export function validateConfig(value: unknown, where: { file?: string } = {}): AmplifierConfig {
  validateShape ??= createAjv(configSchema).compile(configSchema);
  const issues: SchemaIssue[] = validateShape(value) ? [] : schemaIssues(validateShape.errors ?? [], value);
  if (issues.length === 0) issues.push(...duplicateNames(value as AmplifierConfig));
  if (issues.length > 0) throw issuesError("CONFIG_INVALID", issues, where);
  return value as AmplifierConfig;
}

function duplicateNames(config: AmplifierConfig): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const list of NAMED_LISTS) {
    const firstIndex = new Map<string, number>();
    (config[list] ?? []).forEach((ref, index) => {
      const earlier = firstIndex.get(ref.name);
      if (earlier === undefined) {
        firstIndex.set(ref.name, index);
        return;
      }
      const segments = [list, index, "name"];
      issues.push({
        segments,
        path: formatPath(segments),
        message: `duplicate name "${ref.name}"`,
        expected: `a name unique within ${list} (${formatPath([list, earlier, "name"])} has it already)`,
        given: ref.name,
      });
    });
  }
  return issues;
}
