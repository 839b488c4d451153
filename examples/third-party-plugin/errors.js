/**
 * Errors of this module. The codes are amplifier-ts's own (INVALID_MESSAGE, INVALID_BUDGET,
 * BUDGET_TOO_SMALL, INVALID_MODULE_CONFIG, INVALID_ARGUMENT), so a host matches on them the same
 * way whichever context module is mounted — without this package importing amplifier-ts.
 */
export const MODULE_NAME = "amplifier-module-context-example";

export class ContextExampleError extends Error {
  /**
   * @param {string} code stable error code
   * @param {string} message what went wrong, in words
   * @param {Record<string, unknown>} [details] module, path, expected, given, numbers…
   */
  constructor(code, message, details = {}) {
    super(`${MODULE_NAME}: ${message}`);
    this.name = "ContextExampleError";
    this.code = code;
    this.details = { module: MODULE_NAME, ...details };
  }
}

/** A short, safe rendering of a value for an error message. */
export function describe(value) {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}
