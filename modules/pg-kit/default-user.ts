import { userInfo } from "node:os";

/**
 * The user a PostgreSQL connection URL without one connects as, chosen the way libpq (psql)
 * chooses it, so `postgres://127.0.0.1:5432/test` means the same here as in psql:
 *
 * | source | used when |
 * |---|---|
 * | the URL's user (`postgres://alice@host/db`) | it has one |
 * | `PGUSER` | it is set and not empty |
 * | the operating-system user (`os.userInfo().username`, not `$USER`, which shells may leave unset or stale) | it can be looked up |
 * | `postgres` | the process has no user entry (some containers run under a uid without one) |
 *
 * The pg driver alone falls back to `$USER` only; with it unset it sends no user name and the
 * server refuses the connection ("no PostgreSQL user name specified in startup packet").
 */
export function withDefaultUser(url: string, env: NodeJS.ProcessEnv = process.env): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // the driver reports an unparsable URL itself
  }
  if (parsed.username !== "") return url;
  parsed.username = encodeURIComponent(defaultUser(env));
  return parsed.toString();
}

export function defaultUser(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PGUSER) return env.PGUSER;
  try {
    const { username } = userInfo();
    if (username) return username;
  } catch {
    // no passwd entry for this uid
  }
  return "postgres";
}
