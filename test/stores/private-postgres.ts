import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { tmpdir } from "node:os";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own: a cluster made by `initdb` in a temp folder, on a free
 * port, started and stopped with `pg_ctl` — so fault tests can restart "the server" without
 * touching the machine's (no `pg_ctlcluster`, nothing read from /etc/postgresql).
 *
 * | concern | how |
 * |---|---|
 * | binaries | `AMPLIFIER_PG_BIN`, else the newest `/usr/lib/postgresql/<version>/bin` (Debian, Ubuntu), else `initdb` on PATH |
 * | root | PostgreSQL refuses to run as root: as root the server runs as the `postgres` OS user (`runuser -u postgres --`), the folder owned by it |
 * | user | `initdb -U postgres`: the superuser's name never depends on `$USER` (which may be unset) |
 * | auth | trust, listening on 127.0.0.1 and a socket in the temp folder only |
 * | cleanup | `remove()` stops the server (immediate) and deletes the folder |
 *
 * `findPrivatePostgres()` says why a private server cannot be made here (the tests skip with it).
 */
export interface PrivatePostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  start(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server if it runs and deletes its folder. Idempotent. */
  remove(): Promise<void>;
}

export type PrivatePostgresSupport = { ok: true; bin: string; runAs: string[] } | { ok: false; reason: string };

export async function findPrivatePostgres(): Promise<PrivatePostgresSupport> {
  const bin = await findBin();
  if (bin === undefined) {
    return { ok: false, reason: "no PostgreSQL server binaries (initdb, pg_ctl) in AMPLIFIER_PG_BIN, /usr/lib/postgresql/*/bin or PATH" };
  }
  if (process.getuid?.() !== 0) return { ok: true, bin, runAs: [] };
  const hasPostgresUser = await run("id", ["-u", "postgres"]).then(() => true, () => false);
  const hasRunuser = await run("runuser", ["--help"]).then(() => true, () => false);
  if (!hasPostgresUser || !hasRunuser) {
    return { ok: false, reason: "running as root, and PostgreSQL refuses root: needs the postgres OS user and runuser" };
  }
  return { ok: true, bin, runAs: ["runuser", "-u", "postgres", "--"] };
}

export async function startPrivatePostgres(support: Extract<PrivatePostgresSupport, { ok: true }>): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), "amp-private-pg-"));
  const data = join(dir, "data");
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=on`;
  const exec = async (tool: string, args: string[]) => {
    const [command, ...prefix] = support.runAs.length > 0 ? support.runAs : [join(support.bin, tool)];
    const argv = support.runAs.length > 0 ? [...prefix, join(support.bin, tool), ...args] : args;
    try {
      await run(command!, argv, { timeout: 60_000, cwd: dir });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(" ")} failed: ${stderr || stdout || String(error)}`);
    }
  };
  let removed = false;
  try {
    if (support.runAs.length > 0) {
      const { stdout } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const pgctl = (action: string, extra: string[] = []) => exec("pg_ctl", ["-D", data, "-w", "-t", "60", ...extra, action]);
  const server: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // -l on both: without it the server inherits pg_ctl's stdout, and the call waits for a pipe that never closes.
    start: () => pgctl("start", ["-o", options, "-l", join(dir, "server.log")]),
    restart: () => pgctl("restart", ["-m", "fast", "-o", options, "-l", join(dir, "server.log")]),
    stop: () => pgctl("stop", ["-m", "fast"]),
    async remove() {
      if (removed) return;
      removed = true;
      if (existsSync(join(data, "postmaster.pid"))) await pgctl("stop", ["-m", "immediate"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    await server.remove();
    throw error;
  }
  return server;
}

async function findBin(): Promise<string | undefined> {
  const has = (folder: string) => existsSync(join(folder, "initdb")) && existsSync(join(folder, "pg_ctl"));
  const given = process.env.AMPLIFIER_PG_BIN;
  if (given) return has(given) ? given : undefined;
  const versions = await readdir("/usr/lib/postgresql").catch(() => [] as string[]);
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const folder = join("/usr/lib/postgresql", version, "bin");
    if (has(folder)) return folder;
  }
  return (process.env.PATH ?? "").split(delimiter).find((folder) => folder !== "" && has(folder));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
