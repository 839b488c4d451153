/**
 * What a distribution gives the kernel's session (createSessionWith): capabilities registered
 * before anything mounts, its module names, a default config and a config overlay. The bare
 * kernel has none of them — no default config, no capability — and says so.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { createSession, createSessionWith } from "../session.js";

/** A context module that records, while it mounts, the capability "probe" and its own config. */
const CONTEXT_MODULE = `
export async function mount(coordinator, config) {
  const messages = [];
  const manager = {
    seen: { probe: coordinator.getCapability("probe"), label: config.label },
    async addMessage(m) { messages.push(m); },
    async getMessagesForRequest() { return [...messages]; },
    async getMessages() { return [...messages]; },
    async setMessages(ms) { messages.splice(0, messages.length, ...ms); },
    async clear() { messages.length = 0; },
  };
  coordinator.mount("context", manager);
}
`;

/** A folder with the module as ./context.mjs and as the installed package "probe-context". */
async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "amplifier-distribution-"));
  await writeFile(join(dir, "context.mjs"), CONTEXT_MODULE);
  const pkg = join(dir, "node_modules", "probe-context");
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "probe-context", type: "module", exports: "./index.mjs" }));
  await writeFile(join(pkg, "index.mjs"), CONTEXT_MODULE);
  return dir;
}

type Seen = { seen: { probe: unknown; label: unknown } };

describe("createSessionWith: a distribution's defaults", () => {
  it("the bare kernel has no default config: CONFIG_NOT_FOUND naming the file it looked for", async () => {
    const cwd = await project();
    const error = await createSession(undefined, { cwd }).catch((e: unknown) => e);
    expect(isAmplifierError(error, "CONFIG_NOT_FOUND") && [error.details.file, error.expected]).toEqual([
      join(cwd, "amplifier.config.json"),
      "a config object, a path to a config file, ./amplifier.config.json, or options.defaultConfig",
    ]);
  });

  it("capabilities are there while modules mount; a call's capabilities merge over the defaults'", async () => {
    const cwd = await project();
    const create = createSessionWith({ capabilities: { probe: "default", other: 1 }, defaultConfig: { session: { context: { module: "./context.mjs", config: { label: "default" } } } } });
    const plain = await create(undefined, { cwd });
    expect((plain.context as unknown as Seen).seen).toEqual({ probe: "default", label: "default" });
    expect(plain.coordinator.getCapability("other")).toBe(1);
    await plain.close();
    const overridden = await create(undefined, { cwd, capabilities: { probe: "call" } });
    expect((overridden.context as unknown as Seen).seen.probe).toBe("call");
    expect(overridden.coordinator.getCapability("other")).toBe(1);
    await overridden.close();
  });

  it("module names: an alias stands for an installed package; the overlay edits the config before it mounts", async () => {
    const cwd = await project();
    const create = createSessionWith({
      moduleNames: { aliases: { probe: "probe-context" } },
      prepareConfig: (config) => ({ ...config, session: { ...config.session, context: { ...config.session.context!, config: { label: "overlaid" } } } }),
    });
    const session = await create({ session: { context: { module: "probe" } } }, { cwd });
    expect(session.modules.map((m) => [m.module, m.source])).toEqual([["probe", "builtin"]]);
    expect((session.context as unknown as Seen).seen.label).toBe("overlaid");
    await session.close();
  });

  it("bad defaults are refused when the factory is made, bad call options when it is called", async () => {
    expect(() => createSessionWith({ prepareConfig: "no" as never })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", path: "createSessionWith.options.prepareConfig" }));
    const error = await createSessionWith({})(undefined, { capability: {} } as never).catch((e: unknown) => e);
    expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.details.hint).toBe('did you mean "capabilities"?');
  });
});
