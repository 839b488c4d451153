/**
 * The built executable (dist/cli/main.js, built by the global setup) in a real process: as a user
 * runs it from a shell — piped into head, from a folder without a config file.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlStore } from "../../modules/stores/jsonl-store.js";

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-cli-process-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("amplifier-ts as a process", () => {
  it("sessions show piped into head -1: the header line, exit 0, no EPIPE crash", async () => {
    const store = new JsonlStore({ storagePath: join(dir, "store"), fsync: "never" });
    await store.appendMany("big", Array.from({ length: 5_000 }, (_, i) => ({ role: "user" as const, content: `message ${i} ${"x".repeat(80)}`, metadata: { id: `m${i}` } })));
    await store.close();
    const script = `"${process.execPath}" "${MAIN}" sessions show big --store store 2>cli-stderr.txt | head -1; echo "exit=\${PIPESTATUS[0]}"`;
    const { stdout } = await run("bash", ["-c", script], { cwd: dir });
    const [header, exit] = stdout.trimEnd().split("\n");
    expect(header).toMatch(/^#\s+ROLE\s+ID\s+TIME\s+CONTENT$/);
    const { readFile } = await import("node:fs/promises");
    const stderr = await readFile(join(dir, "cli-stderr.txt"), "utf8");
    expect(stderr).not.toContain("EPIPE");
    expect(exit).toBe("exit=0");
    // The command ran to its end: the session's lock was released, and a command that only reads
    // wrote nothing beside the file (no sidecar index: the store is opened readOnly).
    expect((await readdir(join(dir, "store"))).sort()).toEqual(["big.jsonl"]);
  });

  it("validate without a config file validates the default session (context-simple), as createSession() does", async () => {
    const { stdout } = await run(process.execPath, [MAIN, "validate"], { cwd: dir });
    expect(stdout).toMatch(/context-simple\s+context\s+builtin\s+ok/);
    expect(stdout).toContain("ok: 1 module mounted from the default config");
    expect(await readdir(dir)).toEqual([]);
  });

  it("validate leaves no folders behind (context-persistent's session folder)", async () => {
    await writeFile(join(dir, "amplifier.config.json"), JSON.stringify({ session: { context: { module: "context-persistent" } } }));
    const { stdout } = await run(process.execPath, [MAIN, "validate"], { cwd: dir });
    expect(stdout).toMatch(/context-persistent\s+context\s+builtin\s+ok/);
    expect(await readdir(dir)).toEqual(["amplifier.config.json"]);
  });

  it("validate leaves no folders behind (a file blob store of the stores section: its folder is made by the first upload)", async () => {
    const config = { session: { context: { module: "context-persistent" } }, stores: { blobs: { module: "store-blobs", config: { type: "file", path: "blobs" } } } };
    await writeFile(join(dir, "amplifier.config.json"), JSON.stringify(config));
    const { stdout } = await run(process.execPath, [MAIN, "validate"], { cwd: dir });
    expect(stdout).toMatch(/store-blobs\s+stores:blobs\s+builtin\s+ok/);
    expect(await readdir(dir)).toEqual(["amplifier.config.json"]);
  });
});
