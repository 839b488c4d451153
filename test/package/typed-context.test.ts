import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * `session.context` as a consumer of the published packages types it: from the built declarations
 * (dist/), strict, NodeNext — the built-in context modules register their manager type
 * (ContextModules) in their .d.ts, and the umbrella's root brings them into the program. The
 * `@ts-expect-error` lines prove the types bite: an unused directive is itself an error.
 * (test/types/session-context.test-d.ts holds the same promises over the sources.)
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROOT_POSIX = ROOT.replaceAll("\\", "/");

const CONSUMER = `
import { createSession, type ContextManager, type ContextPersistentConfig, type ContextSimpleConfig, type HistoryContextManager, type LastWindow, type SearchHit, type Session } from "amplifier-ts";
import type { MessageExplanation } from "amplifier-ts";

const config = { storagePath: ".amplifier/sessions", fsync: "batch" } satisfies ContextPersistentConfig;
const persistent = await createSession({ session: { context: { module: "context-persistent", config } } });
const hits: SearchHit[] = await persistent.context.search("why do the tests fail");
const runId: string = persistent.context.startRun();
await persistent.context.endRun(runId);
persistent.context.setTools([{ type: "function", function: { name: "ls", parameters: { type: "object" } } }]);
const last: LastWindow | undefined = persistent.context.explainLastWindow();
const why: MessageExplanation[] | undefined = last?.explanation;

const simpleConfig = { maxTokens: 8000 } satisfies ContextSimpleConfig;
const simple = await createSession({ session: { context: { module: "context-simple", config: simpleConfig } } });
const handle: HistoryContextManager = simple.context;
const byCaller = await createSession<HistoryContextManager>("amplifier.config.json");
const size: number = byCaller.context.size;

const plain = await createSession();
const contract: ContextManager = plain.context;
// @ts-expect-error the ContextManager contract has no search: name the module, or pass the manager type
await plain.context.search("x");
const thirdParty = await createSession({ session: { context: { module: "amplifier-module-context-example", config: {} } } });
// @ts-expect-error an unregistered module types as the contract
thirdParty.context.explainLastWindow();
const wide: Session = persistent;

export const used = [hits, why, handle, size, contract, wide];
`;

/** The old entries name the same handle (and register the same module types on their own). */
const ENTRIES_CONSUMER = `
import { createSession } from "@amplifier-ts/core";
import type { HistoryContextManager, LastWindow } from "amplifier-ts/modules/context-simple";
import type { HistoryContextManager as PersistentHandle } from "amplifier-ts/modules/context-persistent";

const simple = await createSession({ session: { context: { module: "context-simple", config: {} } } });
const handle: HistoryContextManager = simple.context;
const persistent = await createSession({ session: { context: { module: "context-persistent", config: {} } } });
const same: PersistentHandle = persistent.context;
const last: LastWindow | undefined = same.explainLastWindow();
export const used = [handle, last];
`;

/** Compiles one consumer file on its own (augmentations are program-wide) from the built declarations. */
function compile(name: string, source: string): string[] {
  const dir = join(ROOT, ".cache", "typed-context-consumer");
  mkdirSync(dir, { recursive: true });
  const consumer = join(dir, `${name}.ts`);
  writeFileSync(consumer, source);
  const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
  const args = ["--ignoreConfig", "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--listFiles", consumer];
  const result = spawnSync(tsc, args, { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  const files = result.stdout.split("\n").map((line) => line.trim().replaceAll("\\", "/"));
  // Only built declarations: no TypeScript source of a workspace package is read.
  expect(files.filter((file) => file.startsWith(ROOT_POSIX) && file.endsWith(".ts") && !file.endsWith(".d.ts") && !file.includes("/.cache/"))).toEqual([]);
  return files;
}
describe("session.context, typed from the built packages", () => {
  it("importing only the root: the built-in manager's handle (search, explainLastWindow, runs, setTools) under strict, without a cast; the contract elsewhere", () => {
    const files = compile("root-consumer", CONSUMER);
    // The root's type references bring in the modules' ContextModules entries.
    for (const entry of ["dist/index.d.ts", "modules/context-simple/dist/index.d.ts", "modules/context-persistent/dist/index.d.ts"]) expect(files).toContain(`${ROOT_POSIX}${entry}`);
  });

  it("through @amplifier-ts/core and the old entries amplifier-ts/modules/context-*: the same handle", () => {
    compile("entries-consumer", ENTRIES_CONSUMER);
  });
});
