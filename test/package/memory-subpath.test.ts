import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The memory behaviour that left @amplifier-ts/contracts (and with it @amplifier-ts/core and the
 * umbrella root, which re-exported contracts): each name imports from `amplifier-ts/memory`, and
 * from the package that owns it now. Checked against the built dist, as a consumer resolves it.
 */
const MOVED: Record<string, string> = {
  checkCreateOptions: "@amplifier-ts/memory-base",
  checkEventTypes: "@amplifier-ts/memory-base",
  checkMaxAgeHours: "@amplifier-ts/memory-base",
  checkMaxEvents: "@amplifier-ts/memory-base",
  checkMemorySessionId: "@amplifier-ts/memory-base",
  checkRecentOptions: "@amplifier-ts/memory-base",
  checkUserFilter: "@amplifier-ts/memory-base",
  CONVERSATION_SPEAKERS: "@amplifier-ts/memory-base",
  createMemoryEvent: "@amplifier-ts/memory-base",
  formatConversation: "@amplifier-ts/memory-base",
  memoryOptions: "@amplifier-ts/memory-base",
  memoryStats: "@amplifier-ts/memory-base",
  mountMemory: "@amplifier-ts/memory-base",
  newMemorySessionId: "@amplifier-ts/memory-base",
  recentMemoryEvents: "@amplifier-ts/memory-base",
  sessionsToEvict: "@amplifier-ts/memory-base",
  memoryLocalConfigSchema: "@amplifier-ts/module-memory-local",
  memoryPostgresConfigSchema: "@amplifier-ts/module-memory-postgres",
  memoryRedisConfigSchema: "@amplifier-ts/module-memory-redis",
};

describe("amplifier-ts/memory", () => {
  it("exports every memory name that moved out of contracts, the same value as its owning package", () => {
    const probe = [
      "const memory = await import('amplifier-ts/memory');",
      `const moved = ${JSON.stringify(MOVED)};`,
      "const out = {};",
      "for (const [name, owner] of Object.entries(moved)) out[name] = name in memory && memory[name] === (await import(owner))[name];",
      "console.log(JSON.stringify({ out, classes: ['MemoryBase', 'LocalMemory', 'NullMemory', 'PostgresMemory', 'RedisMemory'].filter((n) => typeof memory[n] === 'function') }));",
      "process.exit(0);",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const { out: found, classes } = JSON.parse(out.trim().split("\n").at(-1)!) as { out: Record<string, boolean>; classes: string[] };
    expect(found).toEqual(Object.fromEntries(Object.keys(MOVED).map((name) => [name, true])));
    expect(classes).toEqual(["MemoryBase", "LocalMemory", "NullMemory", "PostgresMemory", "RedisMemory"]);
  });
});
