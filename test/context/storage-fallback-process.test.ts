import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../docs/markdown.js";

/**
 * Issue 25, item 10, as the README's user meets it: a program on the built package whose storage
 * folder is read-only. The session still works (memory), and the terminal shows one warning with
 * its code — stderr of a real process, not a spy. Run as an unprivileged user when the tests run
 * as root (root writes into a read-only folder regardless).
 */
const NOBODY = 65_534;
const asRoot = process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), "amplifier-readonly-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROGRAM = `import { createSession } from "amplifier-ts";
const session = await createSession({ session: { context: { module: "context-persistent", config: { storagePath: process.argv[2], sessionId: "s1" } } } });
await session.context.addMessage({ role: "user", content: "kept in memory" });
console.log(JSON.stringify({ degraded: session.degraded, messages: (await session.context.getMessages()).length }));
await session.close();
`;

describe("a read-only storage folder, in a process of its own", () => {
  it("the program goes on in memory and its stderr carries one AMPLIFIER_STORAGE_FALLBACK warning naming the folder and strict", () => {
    const readOnly = join(dir, "read-only");
    mkdirSync(readOnly);
    chmodSync(dir, 0o755);
    chmodSync(readOnly, 0o555);
    // Beside the packages, so "amplifier-ts" resolves to the built umbrella as in a user's app.
    const programDir = join(ROOT, ".cache", "fallback-program");
    mkdirSync(programDir, { recursive: true });
    const program = join(programDir, "read-only-folder.mjs");
    writeFileSync(program, PROGRAM);
    chmodSync(program, 0o644);

    const storagePath = join(readOnly, "sessions");
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const run = spawnSync(process.execPath, [program, storagePath], { cwd: dir, env, encoding: "utf8", timeout: 50_000, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);

    const warnings = run.stderr.split("\n").filter((line) => line.includes("[AMPLIFIER_STORAGE_FALLBACK]"));
    expect(warnings, run.stderr).toHaveLength(1);
    expect(warnings[0]).toContain(storagePath);
    expect(warnings[0]).toContain('"strict": true');
    const out = JSON.parse(run.stdout) as { degraded: { fallback?: { store: string; storagePath: string } }; messages: number };
    expect(out).toEqual({ degraded: { fallback: expect.objectContaining({ store: "jsonl", storagePath }) }, messages: 1 });
  });
});
