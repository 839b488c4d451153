import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { planModules } from "../../core/loader/plan-modules.js";
import { createSession } from "../../src/session/index.js";
import { rejection } from "./support.js";

/**
 * The top-level "embedder" entry (issue 30): any module named there leaves an Embedder as the
 * capability "embedder" before the context mounts — the kernel names no embedder module. The
 * fixtures are written to a temp folder: one registers the capability itself, one returns its
 * Embedder, one does neither; a context probe records what it saw when it mounted.
 */
let dir: string;
/** The built context-simple (the probe is plain JS in a temp folder; vitest's globalSetup builds dist/). */
const CONTEXT_SIMPLE = pathToFileURL(join(import.meta.dirname, "..", "..", "modules", "context-simple", "dist", "index.js")).href;

const EMBED = "embed: async (texts) => texts.map((t) => Float32Array.from([/automobile|vehicle/.test(t) ? 1 : -1]))";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-embedder-entry-"));
  await writeFile(join(dir, "registers.mjs"), `export async function mount(coordinator, config) { coordinator.registerCapability("embedder", { name: "registers:" + (config.label ?? ""), dimensions: 1, ${EMBED} }); }\n`);
  await writeFile(join(dir, "returns.mjs"), `export async function mount() { return { name: "returns", ${EMBED} }; }\n`);
  await writeFile(join(dir, "nothing.mjs"), "export async function mount() {}\n");
  await writeFile(
    join(dir, "probe-context.mjs"),
    `import { mount as mountSimple } from ${JSON.stringify(CONTEXT_SIMPLE)};
export async function mount(coordinator, config) {
  globalThis.__embedderSeenAtContextMount = coordinator.getCapability("embedder")?.name ?? null;
  return mountSimple(coordinator, config);
}\n`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('config entry "embedder"', () => {
  it("is planned after the hooks and before the context", () => {
    const plan = planModules({ session: { context: { module: "c" } }, embedder: { module: "e", config: { a: 1 } }, hooks: [{ module: "h" }], memory: { module: "m" } });
    expect(plan.map((e) => [e.point, e.path])).toEqual([
      ["hooks", "hooks[0]"],
      ["embedder", "embedder"],
      ["context", "session.context"],
      ["memory", "memory"],
    ]);
  });

  it("a module that registers the capability: the context finds it when it mounts and searches by its vectors", async () => {
    const session = await createSession({ embedder: { module: "./registers.mjs", config: { label: "x" } }, session: { context: { module: "./probe-context.mjs" } } }, { cwd: dir });
    expect((globalThis as { __embedderSeenAtContextMount?: unknown }).__embedderSeenAtContextMount).toBe("registers:x");
    expect(session.modules.map((m) => [m.point, m.status])).toEqual([
      ["embedder", "mounted"],
      ["context", "mounted"],
    ]);
    const context = session.context as unknown as { addMessage(m: unknown): Promise<void>; indexReady(): Promise<void>; search(q: string): Promise<{ id: string }[]> };
    await context.addMessage({ role: "user", content: "my automobile broke down", metadata: { id: "car" } });
    await context.addMessage({ role: "user", content: "lunch at noon", metadata: { id: "lunch" } });
    await context.indexReady();
    expect((await context.search("vehicle"))[0]?.id).toBe("car");
    await session.close();
  });

  it("a module that returns its Embedder: the loader registers it", async () => {
    const session = await createSession({ embedder: { module: "./returns.mjs" }, session: { context: { module: "./probe-context.mjs" } } }, { cwd: dir });
    expect((globalThis as { __embedderSeenAtContextMount?: unknown }).__embedderSeenAtContextMount).toBe("returns");
    expect(session.coordinator.getCapability<{ name: string }>(EMBEDDER_CAPABILITY)?.name).toBe("returns");
    await session.close();
  });

  it("a module that leaves no Embedder fails the session (INVALID_MODULE inside MODULE_MOUNT_FAILED), unless optional: then search stays lexical", async () => {
    const error = await rejection(() => createSession({ embedder: { module: "./nothing.mjs" }, session: { context: { module: "context-simple" } } }, { cwd: dir }), "MODULE_MOUNT_FAILED");
    expect(error.details).toMatchObject({ path: "embedder", causeCode: "INVALID_MODULE" });
    const session = await createSession({ embedder: { module: "./nothing.mjs", optional: true }, session: { context: { module: "./probe-context.mjs" } } }, { cwd: dir });
    expect(session.modules.map((m) => [m.point, m.status])).toEqual([
      ["embedder", "skipped"],
      ["context", "mounted"],
    ]);
    expect((globalThis as { __embedderSeenAtContextMount?: unknown }).__embedderSeenAtContextMount).toBeNull();
    await session.close();
  });

  it("is checked by the config schema: an entry without a module is CONFIG_INVALID", async () => {
    const error = await rejection(() => createSession({ embedder: { config: {} }, session: { context: { module: "context-simple" } } } as never, { cwd: dir }), "CONFIG_INVALID");
    expect(JSON.stringify(error.details)).toContain("embedder");
  });
});
