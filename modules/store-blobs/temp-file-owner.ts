import { createHash, randomBytes } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who wrote a blob temp file, and when it is provably abandoned — so that opening a blob folder
 * never deletes another process's upload in flight.
 *
 * A temp file is named `.<record name>.tmp-<space>-<boot>-<pid>-<12 hex>`:
 * - `space`: 8 hex of sha256(host name, pid namespace) — where `pid` means something (two
 *   containers on one kernel have their own pid numbers, two hosts on one network folder too);
 * - `boot`: 8 hex of sha256(the kernel's boot id), or `none` where the system has none (not Linux);
 * - `pid`: the writing process; the random tail keeps concurrent writes of one key apart.
 *
 * | the name says | verdict |
 * |---|---|
 * | written by this process, still being written (the in-flight registry) | in flight, whatever its age |
 * | not modified for `maxAgeMs` | abandoned, whoever wrote it (a dead host, a pid reused by another program) |
 * | our pid space, another boot (both known) | abandoned: every process of that boot is gone |
 * | our pid space and boot, our pid, not in the registry | abandoned: an earlier process had our pid |
 * | our pid space and boot, a live pid (`kill(pid, 0)` succeeds or EPERM) | in flight |
 * | our pid space and boot, a dead pid | abandoned |
 * | another pid space, or a name without owner (written before owners were named) | in flight until `maxAgeMs` |
 */
export type TempVerdict = "in-flight" | "abandoned";

/** How long an unmodified temp file of an unknown or live owner is kept: 24 hours. */
export const DEFAULT_TEMP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** `.<64 hex>.blob.tmp-` then either `<space>-<boot>-<pid>-<hex>` or the older `<pid>-<hex>`. */
const TEMP_NAME = /^\.[0-9a-f]{64}\.blob\.tmp-(?:([0-9a-f]{8})-([0-9a-f]{8}|none)-)?([0-9]+)-[0-9a-f]{12}$/;

/** The temp file name for a write of `recordName` by this process. */
export function tempNameFor(recordName: string): string {
  const { space, boot } = identity();
  return `.${recordName}.tmp-${space}-${boot}-${process.pid}-${randomBytes(6).toString("hex")}`;
}

export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * Marks `path` as being written by this process until the returned function is called. The
 * registry is process-wide (a global symbol), so a second copy of this module — two installed
 * versions, a bundle — still sees this process's uploads.
 */
export function markInFlight(path: string): () => void {
  inFlight().add(path);
  return () => void inFlight().delete(path);
}

/** The verdict on temp file `name` at `path`, last modified at `mtimeMs`. */
export function judgeTemp(path: string, name: string, mtimeMs: number, maxAgeMs: number, now = Date.now()): TempVerdict {
  if (inFlight().has(path)) return "in-flight";
  if (now - mtimeMs >= maxAgeMs) return "abandoned";
  const match = TEMP_NAME.exec(name);
  if (match === null || match[1] === undefined) return "in-flight";
  const [, space, boot, pidText] = match;
  const me = identity();
  if (space !== me.space) return "in-flight";
  if (boot !== me.boot) return boot !== "none" && me.boot !== "none" ? "abandoned" : "in-flight";
  const pid = Number(pidText);
  if (pid === process.pid) return "abandoned";
  return isAlive(pid) ? "in-flight" : "abandoned";
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let cached: { space: string; boot: string } | undefined;

function identity(): { space: string; boot: string } {
  cached ??= {
    space: shortHash(`${hostname()}\0${readOr(() => readlinkSync("/proc/self/ns/pid"), "")}`),
    boot: readOr(() => shortHash(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()), "none"),
  };
  return cached;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8);
}

function readOr(read: () => string, fallback: string): string {
  try {
    return read();
  } catch {
    return fallback;
  }
}

const REGISTRY = Symbol.for("amplifier-ts.store-blobs.temp-files-in-flight");

function inFlight(): Set<string> {
  const holder = globalThis as { [REGISTRY]?: Set<string> };
  return (holder[REGISTRY] ??= new Set());
}
