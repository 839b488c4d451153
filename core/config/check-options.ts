import { createError } from "@amplifier-ts/contracts";
import { didYouMean } from "./suggest-key.js";

/** What an option may be: a string, a number of milliseconds (> 0; Infinity allowed where it means "never"), a plain object (its entries are the option's own to check), or a function. */
export type OptionKind = "string" | "milliseconds" | "object" | "function";

const EXPECTED: Record<OptionKind, string> = {
  string: "a non-empty string",
  milliseconds: "a number of milliseconds greater than 0",
  object: "an object",
  function: "a function",
};

const IS_KIND: Record<OptionKind, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string" && value !== "",
  milliseconds: (value) => typeof value === "number" && value > 0,
  object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  function: (value) => typeof value === "function",
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
    if (!IS_KIND[kind](value)) throw createError("INVALID_ARGUMENT", `invalid ${fn}() option "${key}"`, { path: `${fn}.options.${key}`, expected: EXPECTED[kind], given: value });
  }
}

function hint(text: string | undefined): { hint?: string } {
  return text === undefined ? {} : { hint: text };
}
