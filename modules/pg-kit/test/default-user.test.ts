/**
 * A PostgreSQL url without a user (the default, postgres://127.0.0.1:5432/test) connects as
 * PGUSER or the operating-system user, as psql does — also where $USER is unset (cron, systemd,
 * `env -i`, many containers), where the pg driver alone sends no user name at all.
 */
import { execFile } from "node:child_process";
import { userInfo } from "node:os";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { defaultUser, withDefaultUser } from "@amplifier-ts/pg-kit";
import { queryOnce } from "../../../test/stores/postgres-support.js";

const run = promisify(execFile);
const osUser = userInfo().username;

describe("PostgreSQL default user", () => {
  it("fills a url without a user from PGUSER, else the OS user; a url's own user is kept", () => {
    expect(withDefaultUser("postgres://127.0.0.1:5432/test", {})).toBe(`postgres://${encodeURIComponent(osUser)}@127.0.0.1:5432/test`);
    expect(withDefaultUser("postgres://127.0.0.1:5432/test?schema=s", { PGUSER: "alice" })).toBe("postgres://alice@127.0.0.1:5432/test?schema=s");
    expect(withDefaultUser("postgres://bob:pw@127.0.0.1/test", { PGUSER: "alice" })).toBe("postgres://bob:pw@127.0.0.1/test");
    expect(withDefaultUser("postgres://127.0.0.1/test", { USER: "someone-else" })).toBe(`postgres://${encodeURIComponent(osUser)}@127.0.0.1/test`);
  });

  it("leaves an unparsable url to the driver, and encodes a user name that needs it", () => {
    expect(withDefaultUser("not a url", {})).toBe("not a url");
    expect(withDefaultUser("postgres://127.0.0.1/test", { PGUSER: "a b@c" })).toBe("postgres://a%20b%40c@127.0.0.1/test");
    expect(defaultUser({ PGUSER: "" })).toBe(osUser);
  });

  it("a pool on the default url connects in a process without USER, PGUSER and AMPLIFIER_PG_URL", async (ctx) => {
    const roles = await queryOnce<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname = $1 AND rolcanlogin", [osUser]);
    if (roles.length === 0) ctx.skip(`the server has no login role for the OS user "${osUser}"`);
    const env = { ...process.env };
    for (const name of ["USER", "PGUSER", "LOGNAME", "USERNAME", "AMPLIFIER_PG_URL"]) delete env[name];
    // The built package (globalSetup ran tsc -b), in a fresh process: pg reads $USER when it loads.
    const script = `
      import { closePool, connectionUrl, createPool } from "@amplifier-ts/pg-kit";
      const pool = await createPool(connectionUrl(undefined, { module: "test", path: "url" }));
      try {
        console.log((await pool.query("SELECT current_user AS u")).rows[0].u);
      } finally {
        await closePool(pool);
      }`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { env, cwd: process.cwd(), timeout: 30_000 }).catch((error: { stderr?: string }) => {
      throw new Error(`the child failed: ${error.stderr ?? String(error)}`);
    });
    expect(stdout.trim()).toBe(osUser);
  });
});
