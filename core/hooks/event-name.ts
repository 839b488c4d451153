import { EVENT_NAME_PATTERN } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/**
 * Event names are checked where they enter the bus (register, emit, on/off), so a typo such as
 * `"tool-pre"` fails at once with INVALID_EVENT_NAME instead of silently never firing.
 * The check is syntactic: names added by module augmentation are unknown at run time.
 */
export function assertEventName(name: unknown, options: { allowWildcard?: boolean } = {}): asserts name is string {
  if (options.allowWildcard && name === "*") return;
  if (typeof name === "string" && EVENT_NAME_PATTERN.test(name)) return;
  throw createError("INVALID_EVENT_NAME", undefined, {
    given: name,
    expected: `namespace:action in lowercase (${EVENT_NAME_PATTERN.source})${options.allowWildcard ? ' or "*"' : ""}`,
    hint: typeof name === "string" ? suggest(name) : undefined,
  });
}

/** `"Tool.Pre"` → `did you mean "tool:pre"?` — only when the repair yields a valid name. */
function suggest(name: string): string | undefined {
  const repaired = name.trim().toLowerCase().replace(/[.\/ ]/g, ":");
  return repaired !== name && EVENT_NAME_PATTERN.test(repaired) ? `did you mean "${repaired}"?` : undefined;
}
