import { createError } from "@amplifier-ts/contracts";
import { didYouMean } from "./suggest-key.js";

/** What an option may be: a string, or a number of milliseconds (> 0; Infinity allowed where it means "never"). */
export type OptionKind = "string" | "milliseconds";

const EXPECTED: Record<OptionKind, string> = {
  string: "a non-empty string",
  milliseconds: "a number of milliseconds greater than 0",
};

/**
 * Check an options object of a public function: known keys only (with a "did you mean" for the
 * others), each of the right kind, undefined allowed. Throws INVALID_ARGUMENT naming
 * `<fn>.options.<key>`. Cheap, and it turns a silently ignored typo (`mountTimeout`) into an error.
 */
export function checkOptions(fn: string, options: unknown, spec: Readonly<Record<string, OptionKind>>): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw createError("INVALID_ARGUMENT", `${fn}() options must be an object`, { path: `${fn}.options`, expected: "an object", given: options });
  }
  for (const [key, value] of Object.entries(options)) {
    const kind = spec[key];
    if (kind === undefined) {
      throw createError("INVALID_ARGUMENT", `${fn}() has no option "${key}"`, {
        path: `${fn}.options.${key}`,
        expected: `one of ${Object.keys(spec).join(", ")}`,
        given: key,
        ...hint(didYouMean(key, Object.keys(spec))),
      });
    }
    if (value === undefined) continue;
    const ok = kind === "string" ? typeof value === "string" && value !== "" : typeof value === "number" && value > 0;
    if (!ok) throw createError("INVALID_ARGUMENT", `invalid ${fn}() option "${key}"`, { path: `${fn}.options.${key}`, expected: EXPECTED[kind], given: value });
  }
}

function hint(text: string | undefined): { hint?: string } {
  return text === undefined ? {} : { hint: text };
}
