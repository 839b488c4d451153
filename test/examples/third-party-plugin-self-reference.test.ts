/**
 * Issue 25 item 15: the conformance suite's factory — `createSession` naming the plugin by its own
 * package name, as examples/third-party-plugin/README.md tells a plugin's author to write it —
 * failed with MODULE_NOT_FOUND when run inside the plugin's own folder: the loader looked only in
 * node_modules, where a plugin is not installed into itself. Node resolves a package's own name
 * through its `exports` (self-reference); the loader now does too.
 *
 * The example plugin is copied outside this repository (whose workspace links it into
 * node_modules, which would hide the bug), with only its peers linked, as in an author's checkout.
 */
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession } from "../../src/session/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { checkWindowInvariants } from "../../testing/index.js";

const PACKAGE = "amplifier-module-context-example";
const EXAMPLE = fileURLToPath(new URL("../../examples/third-party-plugin", import.meta.url));
const SCOPE = fileURLToPath(new URL("../../node_modules/@amplifier-ts", import.meta.url));

describe("a plugin loaded by its own name from inside its own folder", () => {
  let root: string;
  let plugin: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "amplifier-plugin-self-"));
    plugin = join(root, "amplifier-module-context-example");
    await cp(EXAMPLE, plugin, { recursive: true, filter: (source) => !source.includes("node_modules") });
    await mkdir(join(plugin, "node_modules"));
    await symlink(SCOPE, join(plugin, "node_modules", "@amplifier-ts")); // its peers, nothing else
    await mkdir(join(plugin, "test"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("createSession from the plugin's test folder mounts the plugin itself, and its windows keep the invariants", async () => {
    expect(await readdir(join(plugin, "node_modules"))).toEqual(["@amplifier-ts"]);
    const session = await createSession({ session: { context: { module: PACKAGE, config: { maxTurns: 2 } } } }, { cwd: join(plugin, "test") });
    try {
      expect(session.modules[0]).toMatchObject({ status: "mounted" });
      expect(String(session.modules[0]?.file)).toBe(join(plugin, "index.js"));
      const history = [
        { role: "system" as const, content: "rules" },
        { role: "user" as const, content: "q1" },
        { role: "assistant" as const, content: "a1" },
        { role: "user" as const, content: "q2" },
        { role: "assistant" as const, content: "a2" },
        { role: "user" as const, content: "q3" },
      ];
      for (const message of history) await session.context.addMessage(message);
      const window = await session.context.getMessagesForRequest(2_000);
      expect(window.map((m) => m.content)).toEqual(["rules", "q2", "a2", "q3"]); // maxTurns 2
      expect(checkWindowInvariants(await session.context.getMessages(), window, { budget: 2_000, counter: getTokenCounter("gpt-4o") })).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
