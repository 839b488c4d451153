import { defineErrorCodes, type AmplifierError } from "@amplifier-ts/contracts";

/**
 * fitWindow's own error codes (contracts/ERRORS.md). Each carries `details.module` ("window/fit"),
 * and where it concerns one message `details.index` and `details.path` into the caller's input,
 * `expected` and `given`. The engine's own codes (INVALID_BUDGET, BUDGET_TOO_SMALL) pass through.
 */
export const fitErrors = defineErrorCodes("WINDOW_FIT", {
  UNKNOWN_FORMAT: "The messages are not in a shape fitWindow reads",
  MIXED_FORMATS: "The messages mix the shapes of two frameworks",
  NO_BUDGET: "fitWindow needs a budget: a model the token registry knows, or a budget",
  ASYNC_STRATEGY: "A strategy returned a Promise to fit(); use fitAsync()",
  INVALID_OPTIONS: "An option of fitWindow is not what it expects",
  BUSY: "fit() was called while a fitAsync() of the same fitter is running",
});

export type FitErrorCode = keyof typeof fitErrors.codes;

export function fitError(code: FitErrorCode, message: string, details: Record<string, unknown> = {}): AmplifierError {
  return fitErrors.create(code, message, { module: "window/fit", ...details });
}
