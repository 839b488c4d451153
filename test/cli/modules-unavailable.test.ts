import { describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/main.js";

// A built-in table whose only entry cannot be loaded: a broken installation.
vi.mock("../../src/session/builtin-modules.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/session/builtin-modules.js")>();
  return { ...original, builtinModuleNames: () => ["context-vanished"] };
});

describe("amplifier-ts modules, broken installation", () => {
  it("lists a built-in that cannot be loaded as unavailable and exits 1", async () => {
    let stdout = "";
    let stderr = "";
    const code = await runCli(["modules"], { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) } });
    expect(code).toBe(1);
    expect(stdout).toBe("NAME              KIND  VERSION  DESCRIPTION\ncontext-vanished  ?     ?        unavailable: [MODULE_NOT_FOUND]\n");
    expect(stderr).toMatch(/^error: built-in "context-vanished" cannot be loaded: \[MODULE_NOT_FOUND\]/);
  });
});
