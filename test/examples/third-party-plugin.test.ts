import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { mount, RecentTurnsContext, type CoordinatorLike, type Message } from "amplifier-module-context-example";
import type { Message as AmplifierMessage } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";

const PACKAGE = "amplifier-module-context-example";
const PLUGIN_DIR = fileURLToPath(new URL("../../examples/third-party-plugin/", import.meta.url));

let open: Session[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});

async function session(config: Record<string, unknown> = { maxTurns: 3 }): Promise<Session> {
  const s = await createSession({ session: { context: { module: PACKAGE, config } } });
  open.push(s);
  return s;
}

const turn = (i: number): Message[] => [
  { role: "user", content: `question ${i}` },
  { role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "lookup", arguments: `{"i":${i}}` } }] },
  { role: "tool", tool_call_id: `call_${i}`, content: `result ${i}` },
  { role: "assistant", content: `answer ${i}` },
];

describe("third-party plugin: loaded by package name", () => {
  it("resolves through node_modules and the package's exports, validates its config and mounts the context slot", async () => {
    const s = await session({ maxTurns: 3 });
    const [report] = s.modules;
    expect(report).toMatchObject({ point: "context", module: PACKAGE, source: "package", status: "mounted", version: "1.0.0" });
    expect(report?.file).toBe(`${PLUGIN_DIR}index.js`);
    expect(s.context).toBeInstanceOf(RecentTurnsContext);
    expect(s.coordinator.get("context")).toBe(s.context);
    expect((s.context as unknown as RecentTurnsContext).options.maxTurns).toBe(3);
  });

  it("keeps every message and sends the last maxTurns turns, tool calls paired", async () => {
    const s = await session({ maxTurns: 3 });
    await s.context.addMessage({ role: "system", content: "You are terse." });
    for (let i = 0; i < 6; i++) for (const m of turn(i)) await s.context.addMessage(m as AmplifierMessage);
    const window = await s.context.getMessagesForRequest(10_000);
    expect(window.map((m) => m.content ?? m.tool_calls?.[0]?.id)).toEqual([
      "You are terse.",
      ...[3, 4, 5].flatMap((i) => [`question ${i}`, `call_${i}`, `result ${i}`, `answer ${i}`]),
    ]);
    expect(await s.context.getMessages()).toHaveLength(1 + 6 * 4);
  });

  it("keeps critical messages of older turns with their tool results, after an omitted-history placeholder", async () => {
    const s = await session({ maxTurns: 1 });
    const history = [0, 1, 2].flatMap(turn);
    history[1] = { ...history[1]!, metadata: { critical: true } }; // the call of turn 0
    await s.context.setMessages(history as AmplifierMessage[]);
    const window = await s.context.getMessagesForRequest(10_000);
    expect(window.map((m) => m.content ?? m.tool_calls?.[0]?.id)).toEqual([
      "[earlier conversation omitted]",
      "call_0",
      "result 0",
      "question 2",
      "call_2",
      "result 2",
      "answer 2",
    ]);
    expect(window[0]).toMatchObject({ role: "user", metadata: { window: { synthetic: "omitted-history" } } });
  });

  it("moves a result stored late right after its call, and gives a call with no result a marked synthetic one", async () => {
    const s = await session({ maxTurns: 5 });
    const calls = (ids: string[]): AmplifierMessage => ({
      role: "assistant",
      content: null,
      tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "lookup", arguments: "{}" } })),
    });
    await s.context.setMessages([
      { role: "user", content: "go" },
      calls(["a", "b"]),
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "user", content: "(hook) build finished" },
      { role: "tool", tool_call_id: "b", content: "B" },
      calls(["c"]),
      { role: "tool", tool_call_id: "nowhere", content: "orphan" },
    ]);
    const window = await s.context.getMessagesForRequest(10_000);
    expect(window.map((m) => m.tool_call_id ?? m.content ?? "call")).toEqual([
      "go",
      "call",
      "a",
      "b",
      "(hook) build finished",
      "call",
      "c",
    ]);
    expect(window.at(-1)).toMatchObject({ content: "[tool call interrupted: no result was recorded]", metadata: { window: { synthetic: "interrupted-tool-call" } } });
    expect(await s.context.getMessages()).toHaveLength(7);
  });

  it("cuts by the budget too, counted exactly with the tokens capability every session offers", async () => {
    const s = await session({ maxTurns: 50 });
    expect(s.coordinator.getCapability("tokens")).toEqual({ getTokenCounter });
    for (let i = 0; i < 40; i++) for (const m of turn(i)) await s.context.addMessage(m as AmplifierMessage);
    const counter = getTokenCounter("gpt-4o");
    for (const budget of [120, 300, 1_000]) {
      const window = await s.context.getMessagesForRequest(budget);
      expect(counter.countRequest(window)).toBeLessThanOrEqual(budget);
      expect(window[0]?.role).toBe("user");
      // Exact counting leaves less than one turn unused.
      expect(budget - counter.countRequest(window)).toBeLessThan(counter.countMessages(turn(0) as AmplifierMessage[]));
    }
  });

  it("without the capability (a bare coordinator), counts with @amplifier-ts/tokens' getTokenCounter: the same windows, as tight", async () => {
    const coordinator = new Coordinator();
    const bare = await mount(coordinator, { maxTurns: 50 });
    open.push({ close: () => coordinator.cleanup() } as unknown as Session);
    const s = await session({ maxTurns: 50 });
    for (let i = 0; i < 40; i++) {
      for (const m of turn(i)) {
        const stored = { ...m, metadata: { id: `t${i}-${m.role}-${m.tool_call_id ?? m.content ?? "call"}`, timestamp: "2026-01-01T00:00:00.000Z" } } as AmplifierMessage;
        await bare.addMessage(stored);
        await s.context.addMessage(stored);
      }
    }
    const counter = getTokenCounter("gpt-4o");
    for (const budget of [120, 300, 1_000]) {
      const window = await bare.getMessagesForRequest(budget);
      expect(window).toEqual(await s.context.getMessagesForRequest(budget));
      expect(counter.countRequest(window)).toBeLessThanOrEqual(budget);
      expect(budget - counter.countRequest(window)).toBeLessThan(counter.countMessages(turn(0) as AmplifierMessage[]));
    }
  });

  it("counts with the host's tokens capability when one is registered, looked up at each request (after mount too)", async () => {
    const coordinator = new Coordinator();
    const context = await mount(coordinator, { maxTurns: 50 });
    open.push({ close: () => coordinator.cleanup() } as unknown as Session);
    for (let i = 0; i < 40; i++) for (const m of turn(i)) await context.addMessage(m as AmplifierMessage);
    const exact = await context.getMessagesForRequest(1_000);
    // A host whose counter charges double (a safety factor of 2): windows must fit by its count.
    const doubled = getTokenCounter("gpt-4o", { safetyFactor: 2 });
    coordinator.registerCapability("tokens", { getTokenCounter: () => doubled });
    const cautious = await context.getMessagesForRequest(1_000);
    expect(doubled.countRequest(cautious)).toBeLessThanOrEqual(1_000);
    expect(doubled.countRequest(exact)).toBeGreaterThan(1_000);
    expect(cautious.length).toBeLessThan(exact.length);
  });

  it("when even the newest turn does not fit, the toolkit's ladder caps its tool result (marked) instead of dropping the turn", async () => {
    const s = await session({ maxTurns: 3 });
    await s.context.setMessages([...turn(0), ...turn(1)].map((m, i) => (i === 6 ? { ...m, content: "line of output ".repeat(400) } : m)) as AmplifierMessage[]);
    const window = await s.context.getMessagesForRequest(400);
    expect(getTokenCounter("gpt-4o").countRequest(window)).toBeLessThanOrEqual(400);
    expect(window[0]).toMatchObject({ role: "user", content: "question 1" });
    const result = window.find((m) => m.tool_call_id === "call_1");
    expect(result?.metadata?.window).toMatchObject({ truncated: { parts: 1 } });
    expect(String(result?.content)).toMatch(/\[… \d+ chars truncated …\]/);
    expect((await s.context.getMessages())[6]?.content).toBe("line of output ".repeat(400));
  });

  it("takes the budget from the provider's getInfo(): context_window − max_output_tokens − safetyMargin", async () => {
    const s = await session({ maxTurns: 50, safetyMargin: 500 });
    for (let i = 0; i < 60; i++) for (const m of turn(i)) await s.context.addMessage(m as AmplifierMessage);
    const provider = { getInfo: async () => ({ id: "p", defaults: { model: "gpt-4o", context_window: 2_000, max_output_tokens: 700 } }) };
    const window = await s.context.getMessagesForRequest(undefined, provider);
    expect(getTokenCounter("gpt-4o").countRequest(window)).toBeLessThanOrEqual(800);
    expect(window.length).toBeGreaterThan(4);
  });

  it("rejects an invalid config before mount() with INVALID_MODULE_CONFIG naming the path", async () => {
    for (const [config, path] of [
      [{ maxTurns: 0 }, "maxTurns"],
      [{ maxTurn: 3 }, "maxTurn"],
    ] as const) {
      const error = await createSession({ session: { context: { module: PACKAGE, config } } }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      );
      expect(error?.code).toBe("INVALID_MODULE_CONFIG");
      expect(error?.message).toContain(path);
    }
  });

  it("throws errors with a stable code and the module's name", async () => {
    const s = await session();
    const error = await s.context.addMessage({ role: "tool", content: "no call id" } as AmplifierMessage).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_MESSAGE", details: { module: PACKAGE, path: "message.tool_call_id" } });
    await expect(s.context.getMessagesForRequest(-1)).rejects.toMatchObject({ code: "INVALID_BUDGET", details: { module: PACKAGE, given: -1 } });
  });

  it("imports only its own files, node: built-ins and the toolkit entries it declares as peer dependencies", () => {
    const manifest = JSON.parse(readFileSync(`${PLUGIN_DIR}package.json`, "utf8")) as { peerDependencies?: Record<string, string>; dependencies?: unknown };
    const toolkit = ["@amplifier-ts/contracts", "@amplifier-ts/core", "@amplifier-ts/tokens", "@amplifier-ts/window"];
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(toolkit);
    expect(manifest.dependencies).toBeUndefined();
    const files = readdirSync(PLUGIN_DIR).filter((f) => f.endsWith(".js"));
    expect(files).toContain("index.js");
    const imported = new Set<string>();
    for (const file of files) {
      const source = readFileSync(`${PLUGIN_DIR}${file}`, "utf8");
      const specifiers = [...source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gm)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        if (specifier.startsWith("./") || specifier.startsWith("node:")) continue;
        // The package entries only: no deep path into a package's files, no umbrella amplifier-ts.
        expect(toolkit, `${file} imports ${specifier}`).toContain(specifier);
        imported.add(specifier);
      }
    }
    expect([...imported].sort()).toEqual(toolkit);
  });

  it("ships types the host's own objects satisfy (index.d.ts)", async () => {
    expectTypeOf<Coordinator>().toExtend<CoordinatorLike>();
    expectTypeOf<Message>().toExtend<AmplifierMessage>();
    expectTypeOf<AmplifierMessage>().toExtend<Message>();
    expectTypeOf(mount).returns.resolves.toEqualTypeOf<RecentTurnsContext>();
    const coordinator = new Coordinator();
    const context = await mount(coordinator, { maxTurns: 2 });
    expect(coordinator.get("context")).toBe(context);
    await coordinator.cleanup();
  });
});
