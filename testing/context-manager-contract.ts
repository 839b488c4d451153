import { describe, expect, it, afterEach } from "vitest";
import fc from "fast-check";
import type { ContextManager } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { Provider, ToolDefinition } from "@amplifier-ts/contracts";
import { checkWindowInvariants, isInstruction } from "./window-invariants.js";
import { toolDefinitionsArbitrary, toolHistoryArbitrary } from "./arbitraries.js";
import { propertyRuns } from "./property-runs.js";
import { getTokenCounter } from "@amplifier-ts/tokens";

/** What a factory hands the suite: a fresh, empty context manager and the bus it emits on. */
export interface ContextUnderTest {
  context: ContextManager;
  hooks: HookBusContract;
  /** Releases everything the factory made (files, connections). */
  close(): Promise<void>;
}

export interface ContextContractOptions {
  /** Model whose counting the suite checks windows with (default gpt-4o, the modules' default). */
  model?: string;
  /** Property cases per property (default: AMPLIFIER_PROPERTY_RUNS or 200). */
  numRuns?: number;
}

const err = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as { code?: string; message: string; details?: Record<string, unknown> });

/**
 * The conformance suite every context manager runs: ours (context-simple, context-persistent)
 * and third parties'. Example tests for each method of the contract, then fast-check properties of
 * every window invariant (contracts/CONTEXT.md) on random tool-using histories.
 *
 * ```ts
 * describeContextManagerContract("my-context", async () => {
 *   const session = await createSession({ session: { context: { module: "./my-context.js" } } });
 *   return { context: session.context, hooks: session.hooks, close: session.close };
 * });
 * ```
 */
export function describeContextManagerContract(
  name: string,
  factory: () => Promise<ContextUnderTest>,
  options: ContextContractOptions = {},
): void {
  const model = options.model ?? "gpt-4o";
  const numRuns = options.numRuns ?? propertyRuns(200);

  describe(`ContextManager contract: ${name}`, () => {
    let open: ContextUnderTest[] = [];
    const make = async () => {
      const made = await factory();
      open.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(open.map((o) => o.close()));
      open = [];
    });

    describe("addMessage", () => {
      it("stores a copy and assigns metadata.id and metadata.timestamp when missing", async () => {
        const { context } = await make();
        const input: Message = { role: "user", content: "hello" };
        await context.addMessage(input);
        input.content = "changed by the caller";
        const [stored] = await context.getMessages();
        expect(stored?.content).toBe("hello");
        expect(typeof stored?.metadata?.id).toBe("string");
        expect(Number.isNaN(Date.parse(stored?.metadata?.timestamp ?? ""))).toBe(false);
        expect(input.metadata).toBeUndefined();
      });

      it("keeps a given id and timestamp", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "x", metadata: { id: "given-1", timestamp: "2026-01-02T03:04:05.000Z" } });
        const [stored] = await context.getMessages();
        expect(stored?.metadata).toMatchObject({ id: "given-1", timestamp: "2026-01-02T03:04:05.000Z" });
      });

      it("rejects bad input with INVALID_MESSAGE naming the field, and stores nothing", async () => {
        const { context } = await make();
        const bad = [
          [{ role: "robot", content: "x" }, "role"],
          [{ role: "user" }, "content"],
          [{ role: "tool", content: "x" }, "tool_call_id"],
          [{ role: "user", content: [{ type: "text" }] }, "content"],
        ] as const;
        for (const [message, field] of bad) {
          const e = await err(context.addMessage(message as unknown as Message));
          expect(e?.code).toBe("INVALID_MESSAGE");
          expect(String(e?.details?.path ?? "") + e?.message).toContain(field);
        }
        expect(await context.getMessages()).toEqual([]);
      });
    });

    describe("getMessages / setMessages / clear", () => {
      it("getMessages returns copies: changing them does not change the history", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "a" });
        const first = await context.getMessages();
        first[0]!.content = "mutated";
        first.push({ role: "user", content: "extra" });
        const again = await context.getMessages();
        expect(again).toHaveLength(1);
        expect(again[0]?.content).toBe("a");
      });

      it("setMessages replaces the history, all or nothing", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "old" });
        const e = await err(
          context.setMessages([
            { role: "user", content: "new 1" },
            { role: "assistant", content: "new 2" },
            { role: "nobody", content: "bad" } as unknown as Message,
          ]),
        );
        expect(e?.code).toBe("INVALID_MESSAGE");
        expect(JSON.stringify(e?.details ?? {}) + e?.message).toContain("2");
        expect((await context.getMessages()).map((m) => m.content)).toEqual(["old"]);

        await context.setMessages([{ role: "user", content: "new 1" }, { role: "assistant", content: "new 2" }]);
        expect((await context.getMessages()).map((m) => m.content)).toEqual(["new 1", "new 2"]);
      });

      it("clear empties the history", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "a" });
        await context.clear();
        expect(await context.getMessages()).toEqual([]);
        expect(await context.getMessagesForRequest(10_000)).toEqual([]);
      });

      it("clearRun drops exactly one run's messages", async () => {
        const { context } = await make();
        if (!context.clearRun) return;
        await context.addMessage({ role: "user", content: "r1", metadata: { runId: "run-1" } });
        await context.addMessage({ role: "user", content: "r2", metadata: { runId: "run-2" } });
        await context.addMessage({ role: "user", content: "none" });
        await context.clearRun("run-1");
        expect((await context.getMessages()).map((m) => m.content)).toEqual(["r2", "none"]);
      });
    });

    describe("getMessagesForRequest", () => {
      it("returns a new array whose messages are copies or frozen, and never changes the stored history", async () => {
        const { context } = await make();
        for (let i = 0; i < 30; i++) {
          await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(40)}` });
          await context.addMessage({ role: "assistant", content: `answer ${i} ${"dolor sit ".repeat(40)}` });
        }
        const before = JSON.stringify(await context.getMessages());
        const window = await context.getMessagesForRequest(800);
        expect(window.length).toBeLessThan(60);
        // contracts/CONTEXT.md "Copies": a window message may be the stored message itself, frozen
        // (a write throws in strict-mode code), or a copy the caller owns; never a way into the history.
        for (const m of window) {
          try {
            (m as { content: unknown }).content = "mutated";
            (m.metadata as Record<string, unknown> | undefined)!.id = "mutated";
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
          }
        }
        window.length = 0;
        expect(JSON.stringify(await context.getMessages())).toBe(before);
        // The next window is whole again: the array was the caller's.
        expect((await context.getMessagesForRequest(800)).length).toBeGreaterThan(0);
      });

      it("rejects a budget that is not a positive finite number with INVALID_BUDGET", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "a" });
        for (const budget of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
          expect((await err(context.getMessagesForRequest(budget)))?.code).toBe("INVALID_BUDGET");
        }
      });

      it("sizes the budget from the provider's getInfo(), sync or async", async () => {
        const { context } = await make();
        await context.addMessage({ role: "system", content: "sys" });
        for (let i = 0; i < 40; i++) await context.addMessage({ role: "user", content: `${i} ${"word ".repeat(100)}` });
        const info = { id: "fake", defaults: { model: model, context_window: 4_000, max_output_tokens: 1_000 } };
        const sync: Provider = { getInfo: () => info };
        const asyncProvider: Provider = { getInfo: async () => info };
        const counter = getTokenCounter(model);
        for (const provider of [sync, asyncProvider]) {
          const window = await context.getMessagesForRequest(undefined, provider);
          // 4000 − 1000 − safetyMargin 1000 = 2000
          expect(counter.countRequest(window)).toBeLessThanOrEqual(2_000);
          expect(window.length).toBeGreaterThan(1);
        }
      });

      it("throws BUDGET_TOO_SMALL with the numbers when system + critical alone exceed the budget", async () => {
        const { context } = await make();
        await context.addMessage({ role: "system", content: "rule ".repeat(300) });
        await context.addMessage({ role: "user", content: "keep me ".repeat(100), metadata: { critical: true } });
        await context.addMessage({ role: "user", content: "hi" });
        const e = await err(context.getMessagesForRequest(200));
        expect(e?.code).toBe("BUDGET_TOO_SMALL");
        expect(e?.details).toMatchObject({ budget: 200 });
        expect(Number(e?.details?.required)).toBeGreaterThan(200);
      });

      it("repairs a crash mid-tool in the window and leaves the history as it is", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "list files" });
        await context.addMessage({
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
        });
        const window = await context.getMessagesForRequest(10_000);
        expect(window.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
        expect(await context.getMessages()).toHaveLength(2);
        expect(checkWindowInvariants(await context.getMessages(), window, { budget: 10_000, counter: getTokenCounter(model) })).toEqual([]);
      });

      it("counts the request's tools: the window plus the tool definitions fit the budget", async () => {
        const { context } = await make();
        await context.addMessage({ role: "system", content: "You are a careful coding agent." });
        for (let i = 0; i < 4; i++) {
          await context.addMessage({ role: "user", content: `question ${i} ${"lorem ipsum ".repeat(30)}` });
          await context.addMessage({ role: "assistant", content: `answer ${i} ${"dolor sit ".repeat(30)}` });
        }
        const counter = getTokenCounter(model);
        const stored = await context.getMessages();
        const tools = bulkyTools(6);
        const toolTokens = counter.countTools(tools);
        // Room for the whole history or for the tools, never for both.
        const budget = counter.countRequest(stored) + Math.floor(toolTokens / 2);
        const withTools = await context.getMessagesForRequest(budget, undefined, { tools });
        expect(counter.countRequest(withTools, tools)).toBeLessThanOrEqual(budget);
        expect(withTools.length).toBeLessThan(stored.length);
        expect(checkWindowInvariants(stored, withTools, { budget, counter, tools })).toEqual([]);
        // An empty list is no tools: the window fits the budget with nothing counted for them.
        const bare = await context.getMessagesForRequest(budget, undefined, { tools: [] });
        expect(checkWindowInvariants(stored, bare, { budget, counter })).toEqual([]);
      });

      it("rejects tools that are not tool definitions with INVALID_ARGUMENT", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "a" });
        for (const tools of ["read_file", [{ type: "function", function: { name: "" } }], [{ name: "read_file" }]]) {
          const e = await err(context.getMessagesForRequest(10_000, undefined, { tools: tools as unknown as ToolDefinition[] }));
          expect(e?.code).toBe("INVALID_ARGUMENT");
          expect(String(e?.details?.path ?? "")).toMatch(/tools/);
        }
      });

      it("shows ephemeral messages in the live session's windows", async () => {
        const { context } = await make();
        await context.addMessage({ role: "user", content: "q" });
        await context.addMessage({ role: "assistant", content: "thinking step", metadata: { ephemeral: true } });
        const window = await context.getMessagesForRequest(10_000);
        expect(window.map((m) => m.content)).toContain("thinking step");
      });

      it("emits context:pre_compact and context:post_compact when it compacts", async () => {
        const { context, hooks } = await make();
        const seen: Array<[string, Record<string, unknown>]> = [];
        hooks.register("context:pre_compact", (d) => void seen.push(["pre", d as unknown as Record<string, unknown>]));
        hooks.register("context:post_compact", (d) => void seen.push(["post", d as unknown as Record<string, unknown>]));
        for (let i = 0; i < 50; i++) await context.addMessage({ role: i % 2 ? "assistant" : "user", content: `${i} ${"text ".repeat(60)}` });
        await context.getMessagesForRequest(1_500);
        expect(seen.map(([k]) => k)).toEqual(["pre", "post"]);
        expect(seen[0]![1]).toMatchObject({ messageCount: 50, budget: 1_500 });
        expect(seen[1]![1]).toEqual(
          expect.objectContaining({ removed: expect.any(Number), truncated: expect.any(Number), summarized: expect.any(Number), durationMs: expect.any(Number) }),
        );
        expect(Number(seen[1]![1].removed)).toBeGreaterThan(0);
      });
    });

    describe("window invariants (properties)", () => {
      it(`every window keeps every invariant with the request's tools counted, or BUDGET_TOO_SMALL is thrown exactly when system + critical + tools do not fit (${numRuns} cases)`, async () => {
        const made = await make();
        const counter = getTokenCounter(model);
        await fc.assert(
          fc.asyncProperty(toolHistoryArbitrary(), fc.integer({ min: 50, max: 6_000 }), toolDefinitionsArbitrary(), async (history, budget, tools) => {
            await made.context.setMessages(history);
            const stored = await made.context.getMessages();
            const before = JSON.stringify(stored);
            let window: Message[];
            try {
              window = await made.context.getMessagesForRequest(budget, undefined, { tools });
            } catch (e) {
              const { code, details } = e as { code?: string; details?: { required?: number } };
              if (code !== "BUDGET_TOO_SMALL") throw e;
              // Thrown only when what must be kept verbatim really does not fit.
              const pinned = stored.filter((m) => isInstruction(m) || m.metadata?.critical === true);
              expect(Number(details?.required)).toBeGreaterThan(budget);
              expect(Number(details?.required)).toBeGreaterThanOrEqual(counter.countMessages(pinned) + counter.replyPriming + counter.countTools(tools));
              return;
            }
            expect(checkWindowInvariants(stored, window, { budget, counter, tools })).toEqual([]);
            expect(JSON.stringify(await made.context.getMessages())).toBe(before);
          }),
          { numRuns },
        );
      // A guard against hangs, never a speed check: 100 ms a case is ~25x what a case takes on a
      // quiet 2-core machine, so a slow or shared CI machine cannot fail a suite that merely runs.
      }, 60_000 + numRuns * 100);
    });
  });
}

/** `count` tool definitions with long descriptions and several parameters: a real agent's tool list. */
function bulkyTools(count: number): ToolDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    type: "function",
    function: {
      name: `tool_${i}`,
      description: `Tool ${i}: ${"runs a command in the workspace and returns what it printed, ".repeat(6)}`,
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "the command line to run, quoted as a shell would" },
          cwd: { type: "string", description: "the folder to run it in, relative to the workspace" },
          timeoutMs: { type: "integer", description: "milliseconds before the command is stopped" },
        },
        required: ["command"],
      },
    },
  }));
}
