import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { AmplifierError, type ErrorCode } from "../../contracts/errors.js";

/** Folders of the loader fixtures (absolute, no trailing slash). */
export const FIXTURES = fileURLToPath(new URL("../fixtures", import.meta.url));
export const MODULES = `${FIXTURES}/modules`;
export const CONFIGS = `${FIXTURES}/configs`;

declare global {
  // eslint-disable-next-line no-var
  var __amplifierFixtureLog: string[] | undefined;
}

/** What the fixture modules did since the last reset (see test/fixtures/modules/fixture-log.js). */
export function fixtureLog(): string[] {
  return globalThis.__amplifierFixtureLog ?? [];
}

export function resetFixtureLog(): void {
  globalThis.__amplifierFixtureLog = [];
}

/** The AmplifierError a call throws or rejects with, checked to carry `code`. */
export async function rejection(run: () => unknown, code: ErrorCode): Promise<AmplifierError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(AmplifierError);
    expect((error as AmplifierError).code, (error as Error).message).toBe(code);
    return error as AmplifierError;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}
