import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";

/**
 * Issue 14, item 2: a context that falls back to memory is heard by the config's hooks and
 * reported in session.modules; a relative storagePath starts at the config file's folder.
 */
const HEARD = "__amplifierStorageFallbackHeard";
const HOOK_MODULE = `
export async function mount(coordinator) {
  coordinator.hooks.on("context:storage_fallback", (event) => (globalThis.${HEARD} ??= []).push(event));
}
`;

const originalCwd = process.cwd();
let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-fallback-"));
  delete (globalThis as Record<string, unknown>)[HEARD];
});
afterEach(async () => {
  process.chdir(originalCwd);
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function writeConfig(contextConfig: Record<string, unknown>): Promise<string> {
  await writeFile(join(dir, "fallback-hook.mjs"), HOOK_MODULE);
  const file = join(dir, "amplifier.config.json");
  const config = {
    session: { context: { module: "context-persistent", config: { sessionId: "s1", ...contextConfig } } },
    hooks: [{ module: "./fallback-hook.mjs" }],
  };
  await writeFile(file, JSON.stringify(config));
  return file;
}

describe("storage fallback is never silent (issue 14, item 2)", () => {
  it("a hook from the config file hears context:storage_fallback, and session.modules carries the reason", async () => {
    await writeFile(join(dir, "not-a-dir"), "x");
    const session = await createSession(await writeConfig({ storagePath: "not-a-dir/sessions" }));
    sessions.push(session);

    const heard = (globalThis as Record<string, unknown>)[HEARD] as Array<{ reason: string; storagePath?: string }> | undefined;
    expect(heard).toEqual([expect.objectContaining({ store: "jsonl", storagePath: join(dir, "not-a-dir/sessions"), reason: expect.stringContaining("not-a-dir") })]);
    const context = session.modules.find((m) => m.point === "context");
    expect(context).toMatchObject({ status: "mounted", fallback: { store: "jsonl", reason: heard?.[0]?.reason } });
    // Still graceful: the history lives in memory.
    await session.context.addMessage({ role: "user", content: "kept in memory" });
    expect((await session.context.getMessages()).map((m) => m.content)).toEqual(["kept in memory"]);
  });

  it("a working store: no fallback in the report, nothing heard", async () => {
    const session = await createSession(await writeConfig({ storagePath: "sessions" }));
    sessions.push(session);
    expect(session.modules.find((m) => m.point === "context")?.fallback).toBeUndefined();
    expect((globalThis as Record<string, unknown>)[HEARD]).toBeUndefined();
  });

  it("a relative storagePath resolves from the config file's folder, not from the process's cwd", async () => {
    const file = await writeConfig({ storagePath: "sessions" });
    const elsewhere = await mkdtemp(join(tmpdir(), "amplifier-elsewhere-"));
    try {
      process.chdir(elsewhere);
      const first = await createSession(file);
      await first.context.addMessage({ role: "user", content: "remember me" });
      await first.close();
      expect(existsSync(join(elsewhere, "sessions"))).toBe(false);
      expect(await readFile(join(dir, "sessions", "s1.jsonl"), "utf8")).toContain("remember me");

      process.chdir(originalCwd);
      const again = await createSession(file);
      sessions.push(again);
      expect((await again.context.getMessages()).map((m) => m.content)).toEqual(["remember me"]);
    } finally {
      process.chdir(originalCwd);
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
