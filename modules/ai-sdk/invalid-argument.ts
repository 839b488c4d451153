/** The one place this package's bad-input errors are made: INVALID_ARGUMENT naming what was wrong and what was expected. */
import { createError, type AmplifierError } from "@amplifier-ts/contracts";

export const MODULE = "@amplifier-ts/ai-sdk";

export function invalidArgument(path: string, expected: string, given: unknown, message?: string): AmplifierError {
  return createError("INVALID_ARGUMENT", message ?? `${path}: expected ${expected}`, { module: MODULE, path, expected, given });
}
