import { createError } from "@amplifier-ts/contracts";
import { withDefaultUser } from "./default-user.js";

/** No user in it: a store connects as PGUSER or the operating-system user, as psql would (default-user.ts). */
export const DEFAULT_PG_URL = "postgres://127.0.0.1:5432/test";

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** Where a url came from, for the INVALID_ARGUMENT that refuses it. */
export interface UrlSource {
  module: string;
  /** The option (or variable) the user sets, e.g. "store.url". */
  path: string;
  /** The error's message; the code's default message when absent. */
  message?: string;
}

/**
 * The url a store connects to: `given`, else `AMPLIFIER_PG_URL`, else DEFAULT_PG_URL; it must be
 * a postgres:// (or postgresql://) url (INVALID_ARGUMENT naming `source.path` otherwise). A url
 * without a user gets the one psql would use (default-user.ts).
 */
export function connectionUrl(given: unknown, source: UrlSource): string {
  const url: unknown = given ?? process.env.AMPLIFIER_PG_URL ?? DEFAULT_PG_URL;
  if (typeof url !== "string" || !POSTGRES_URL.test(url)) {
    throw createError("INVALID_ARGUMENT", source.message, { module: source.module, path: source.path, expected: "postgres://user@host:port/database", given: url });
  }
  return withDefaultUser(url);
}

/** The url as errors show it: the password masked; "(unparsable url)" when it is not a URL. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable url)";
  }
}
