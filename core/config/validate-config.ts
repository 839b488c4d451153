import type { AmplifierConfig, DocumentIssue } from "@amplifier-ts/contracts";
import { amplifierConfigSchema, formatIssues, issuesError } from "@amplifier-ts/contracts";
import { formatPath } from "./format-path.js";

/** Lists of named modules: their names are mount names and must be unique within the list. */
const NAMED_LISTS = ["providers", "tools"] as const;

/**
 * Check a config object against the config schema (contracts' amplifierConfigSchema, from which
 * contracts/schemas/amplifier-config.schema.json is emitted) plus the rule a schema cannot say
 * (unique names). Throws CONFIG_INVALID listing every problem, in the file's order; returns the
 * same object, typed. Module configs are checked later, against each module's own schema, once
 * the module is loaded (core/loader).
 */
export function validateConfig(value: unknown, where: { file?: string } = {}): AmplifierConfig {
  const result = amplifierConfigSchema.safeParse(value);
  const issues = result.success ? duplicateNames(value as AmplifierConfig) : formatIssues(result.error.issues, value, "", amplifierConfigSchema, "document");
  if (issues.length > 0) throw issuesError("CONFIG_INVALID", issues, { wording: "document", details: where.file === undefined ? {} : { file: where.file } });
  return value as AmplifierConfig;
}

function duplicateNames(config: AmplifierConfig): DocumentIssue[] {
  const issues: DocumentIssue[] = [];
  for (const list of NAMED_LISTS) {
    const firstIndex = new Map<string, number>();
    (config[list] ?? []).forEach((ref, index) => {
      const earlier = firstIndex.get(ref.name);
      if (earlier === undefined) {
        firstIndex.set(ref.name, index);
        return;
      }
      issues.push({
        path: formatPath([list, index, "name"]),
        message: `duplicate name "${ref.name}"`,
        expected: `a name unique within ${list} (${formatPath([list, earlier, "name"])} has it already)`,
        given: ref.name,
      });
    });
  }
  return issues;
}
