import { expect } from "vitest";
import { isAmplifierError, storeErrors, type AmplifierError, type StoreErrorCode } from "@amplifier-ts/contracts";

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail("expected a rejection, the call resolved");
}

/** Asserts `promise` rejects with the STORE/<code> error; returns it. */
export async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode): Promise<AmplifierError> {
  const error = await rejectionOf(promise);
  expect(storeErrors.is(error, code), `expected STORE/${code}, got ${String((error as Error)?.message ?? error)}`).toBe(true);
  return error as AmplifierError;
}

/** Asserts `promise` rejects with INVALID_ARGUMENT (whose path starts with `path`, when given). */
export async function expectInvalid(promise: Promise<unknown>, path?: string): Promise<AmplifierError> {
  const error = await rejectionOf(promise);
  expect(isAmplifierError(error, "INVALID_ARGUMENT"), `expected INVALID_ARGUMENT, got ${String((error as Error)?.message ?? error)}`).toBe(true);
  if (path !== undefined) expect((error as AmplifierError).path).toMatch(new RegExp(`^${path.replace(/[.[\]]/g, "\\$&")}`));
  return error as AmplifierError;
}

export async function expectClosed(promise: Promise<unknown>): Promise<void> {
  const error = await rejectionOf(promise);
  expect(isAmplifierError(error, "STORE_CLOSED"), `expected STORE_CLOSED, got ${String((error as Error)?.message ?? error)}`).toBe(true);
}
