/**
 * fitWindow in each format: the window comes back in the shape given, kept items are the caller's
 * objects, what the engine changed or made is new and in the format, the budget holds counted
 * independently, tool pairs are intact in the native shape; the typed errors.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { jsonSchema, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isAmplifierError, type CompactionStrategy, type Message } from "@amplifier-ts/contracts";
import { createWindowFitter, fitWindow } from "../index.js";
import { conversation, FORMATS, itemsOf, nativeProblems, prefixShare, render, requestPoints, requestTokens, TOOLS } from "./fit-fixtures.js";

function caught(fn: () => unknown): { code: string; details: Record<string, unknown>; message: string } {
  try {
    fn();
  } catch (error) {
    if (isAmplifierError(error)) return { code: error.code, details: error.details as Record<string, unknown>, message: error.message };
    throw error;
  }
  throw new Error("expected a throw");
}

describe("fitWindow: every format", () => {
  for (const format of FORMATS) {
    it(`${format}: a history that fits comes back as the very same items`, () => {
      const input = render(format, conversation(4));
      const out = fitWindow(input, { model: "gpt-4o" });
      const items = itemsOf(format, input);
      const window = itemsOf(format, out);
      expect(window.length).toBe(items.length);
      window.forEach((item, i) => expect(item).toBe(items[i]));
      if (!Array.isArray(input)) expect(out).not.toBe(input);
    });

    it(`${format}: a long history is cut to the budget; kept items are the caller's, pairs intact, valid for its API`, () => {
      const input = render(format, conversation(120, 80));
      const budget = 4_000;
      const { messages: out, report } = fitWindow(input, { budget, tools: TOOLS, report: true });
      expect(report.format).toBe(format);
      const items = itemsOf(format, input);
      const window = itemsOf(format, out);
      expect(window.length).toBeLessThan(items.length);
      expect(requestTokens(format, out, "gpt-4o", TOOLS)).toBeLessThanOrEqual(budget);
      expect(report.tokens).toBeLessThanOrEqual(budget);
      expect(nativeProblems(format, out)).toEqual([]);
      // Kept items are the same objects, in the input's order; nothing else came from the input.
      let last = -1;
      for (const item of window) {
        const at = items.indexOf(item);
        expect(at).toBeGreaterThan(last);
        last = at;
      }
      expect(report.kept).toBe(window.length);
      expect(report.given).toBe(items.length);
      expect(report.dropped).toBe(items.length - window.length);
      expect(report.items).toHaveLength(items.length);
      expect(report.items.filter((d) => d.action === "kept")).toHaveLength(report.kept);
      expect(report.items.find((d) => d.action === "dropped")?.reason).toBe("before-cut");
    });

    it(`${format}: a huge tool result is truncated into a new item of the format, the caller's item untouched`, () => {
      const c = conversation(3, 20);
      const turns = [...c.turns];
      const last = turns[2]!;
      turns[2] = { ...last, steps: [{ ...last.steps[0]!, calls: [{ ...last.steps[0]!.calls[0]!, result: `${"word ".repeat(6_000)}end` }] }] };
      const input = render(format, { ...c, turns });
      const before = JSON.stringify(input);
      const budget = 3_000;
      const { messages: out, report } = fitWindow(input, { budget, report: true });
      expect(JSON.stringify(input)).toBe(before);
      expect(report.truncated).toBe(1);
      expect(report.items.find((d) => d.action === "truncated")?.reason).toBe("result-cap");
      expect(requestTokens(format, out)).toBeLessThanOrEqual(budget);
      expect(nativeProblems(format, out)).toEqual([]);
      const items = itemsOf(format, input);
      const window = itemsOf(format, out);
      const fresh = window.filter((item) => !items.includes(item));
      expect(fresh).toHaveLength(1);
      expect(JSON.stringify(fresh[0])).toContain("truncated");
    });
  }

  it("langchain: a truncated ToolMessage is a ToolMessage of the caller's class with its id, name and tool_call_id", () => {
    const input = [
      new HumanMessage("read it"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "read_file", args: { path: "/a" }, type: "tool_call" }] }),
      new ToolMessage({ content: "x ".repeat(8_000), tool_call_id: "c1", name: "read_file", id: "tm-1", artifact: { raw: 1 } }),
    ];
    const out = fitWindow(input, { budget: 1_500 });
    expect(out[0]).toBe(input[0]);
    expect(out[1]).toBe(input[1]);
    const tm = out[2] as ToolMessage;
    expect(tm).not.toBe(input[2]);
    expect(tm).toBeInstanceOf(ToolMessage);
    expect([tm.id, tm.name, tm.tool_call_id, tm.artifact]).toEqual(["tm-1", "read_file", "c1", { raw: 1 }]);
    expect(String(tm.content).length).toBeLessThan(8_000);
  });

  it("ai-sdk: an interrupted call gets a tool-result part (error-text) in a new tool message; providerOptions of kept parts stay", () => {
    const input = [
      { role: "user" as const, content: "go" },
      { role: "assistant" as const, content: [{ type: "tool-call" as const, toolCallId: "c1", toolName: "search", input: { q: "a" }, providerOptions: { x: { y: 1 } } }] },
    ];
    const out = fitWindow(input, { budget: 2_000 });
    expect(out.slice(0, 2)).toEqual(input);
    expect(out[0]).toBe(input[0]);
    expect(out[1]).toBe(input[1]);
    expect(out[2]).toMatchObject({ role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "search", output: { type: "error-text" } }] });
    expect(nativeProblems("ai-sdk", out)).toEqual([]);
  });

  it("ai-sdk: files, tool approvals and denied executions are counted (as their JSON) and sent as given", () => {
    const pdf = Buffer.from("%PDF-1.7 a small document ".repeat(200)).toString("base64");
    const input: unknown[] = [
      { role: "user", content: [{ type: "text", text: "Summarise the attachment, then delete it." }, { type: "file", data: pdf, mediaType: "application/pdf", filename: "a.pdf" }] },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "delete_file", input: { path: "a.pdf" } },
          { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c1" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: "ap1", approved: false, reason: "keep it" },
          { type: "tool-result", toolCallId: "c1", toolName: "delete_file", output: { type: "execution-denied", reason: "keep it" } },
        ],
      },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c2", toolName: "render", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c2", toolName: "render", output: { type: "content", value: [{ type: "text", text: "rendered" }, { type: "file-data", data: pdf, mediaType: "application/pdf" }] } }] },
      { role: "assistant", content: "I kept the file." },
      { role: "user", content: [{ type: "file", data: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" }] },
    ];
    const { messages: out, report } = fitWindow(input, { budget: 20_000, report: true });
    expect(report.format).toBe("ai-sdk");
    out.forEach((item, i) => expect(item).toBe(input[i]));
    expect(nativeProblems("ai-sdk", out)).toEqual([]);
    // The document is counted: a budget below its JSON's size drops it with its turn.
    expect(report.tokens).toBeGreaterThan(1_000);
    const small = fitWindow(input, { budget: 2_500, report: true });
    expect(small.messages).not.toContain(input[0]);
    expect(small.report.tokens).toBeLessThanOrEqual(2_500);
  });

  it("openai-responses: built-in tools' items stay in their turn, sent as given; a custom tool's output is truncated like a function's", () => {
    const input: unknown[] = [
      { type: "message", role: "user", content: "What changed in Node 20?" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "node 20 changes" } },
      { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [{ type: "output_text", text: "Here is what changed.", annotations: [] }] },
      { type: "message", role: "user", content: "Run the linter." },
      { type: "custom_tool_call", id: "ctc_1", call_id: "c1", name: "lint", input: "src/**/*.ts" },
      { type: "custom_tool_call_output", call_id: "c1", output: "warning: unused variable\n".repeat(3_000) },
    ];
    const whole = fitWindow(input, { budget: 100_000, report: true });
    expect(whole.report.format).toBe("openai-responses");
    whole.messages.forEach((item, i) => expect(item).toBe(input[i]));
    const { messages: out, report } = fitWindow(input, { budget: 3_000, report: true });
    expect(report.tokens).toBeLessThanOrEqual(3_000);
    const output = out.find((item) => (item as { type?: string }).type === "custom_tool_call_output") as { output: string; call_id: string };
    expect(output).not.toBe(input[5]);
    expect(output.call_id).toBe("c1");
    expect(output.output.length).toBeLessThan((input[5] as { output: string }).output.length);
    expect(out).toContain(input[4]);
  });

  it("openai-responses: an older turn's reasoning is dropped, its calls, built-in items and text kept as given (calls without their fc_ ids)", () => {
    const input: unknown[] = [
      { type: "message", role: "user", content: "Lint it." },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Run the linter first." }], encrypted_content: "ENC1" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "eslint flat config" } },
      { type: "function_call", id: "fc_1", call_id: "c1", name: "lint", arguments: "{}" },
      { type: "custom_tool_call", id: "ctc_1", call_id: "c2", name: "patch", input: "*** Begin Patch" },
      { type: "function_call_output", call_id: "c1", output: "2 warnings" },
      { type: "custom_tool_call_output", call_id: "c2", output: "applied" },
      { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [{ type: "output_text", text: "Fixed both.", annotations: [] }] },
      { type: "message", role: "user", content: "Again, please." },
      { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "ENC2" },
      { type: "function_call", id: "fc_2", call_id: "c3", name: "lint", arguments: "{}" },
      { type: "function_call_output", call_id: "c3", output: "clean" },
    ];
    const { messages: out, report } = fitWindow(input, { model: "o3", budget: 100_000, report: true });
    expect(report.format).toBe("openai-responses");
    expect(nativeProblems("openai-responses", { input: out })).toEqual([]);
    // The older turn: no reasoning; its calls without their item ids (the API refuses an fc_ id
    // whose reasoning item is missing), everything else the caller's own objects.
    expect(out).not.toContain(input[1]);
    expect(out.some((item) => (item as { id?: string }).id === "rs_1")).toBe(false);
    expect(out).toContain(input[2]);
    const call = out.find((item) => (item as { call_id?: string; type?: string }).type === "function_call" && (item as { call_id?: string }).call_id === "c1") as Record<string, unknown>;
    expect(call).toEqual({ type: "function_call", call_id: "c1", name: "lint", arguments: "{}" });
    const custom = out.find((item) => (item as { type?: string }).type === "custom_tool_call") as Record<string, unknown>;
    expect(custom).toEqual({ type: "custom_tool_call", call_id: "c2", name: "patch", input: "*** Begin Patch" });
    for (const i of [0, 5, 6, 7, 8]) expect(out).toContain(input[i]);
    // The last turn keeps its reasoning and its call as given.
    for (const i of [9, 10, 11]) expect(out).toContain(input[i]);
    expect(out.indexOf(input[9])).toBe(out.indexOf(input[10]) - 1);
  });

  it("openai-responses: computer, local shell, shell, apply_patch and MCP approval calls pair with their own outputs; a cut or a made-up result keeps each kind", () => {
    const shot = { type: "computer_screenshot", image_url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=" };
    const turn = (k: number): unknown[] => [
      { type: "message", role: "user", content: `Step ${k}: ${"describe the screen and fix the build ".repeat(20)}` },
      { type: "reasoning", id: `rs_${k}`, summary: [], encrypted_content: `ENC${k}` },
      { type: "computer_call", id: `cu_${k}`, call_id: `cc${k}`, action: { type: "screenshot" }, pending_safety_checks: [], status: "completed" },
      { type: "computer_call_output", call_id: `cc${k}`, output: shot },
      { type: "local_shell_call", id: `ls_${k}`, call_id: `lc${k}`, action: { type: "exec", command: ["ls"], env: {} }, status: "completed" },
      { type: "local_shell_call_output", id: `lc${k}`, output: "file\n".repeat(400) },
      { type: "shell_call", call_id: `sc${k}`, action: { commands: ["npm test"] } },
      { type: "shell_call_output", call_id: `sc${k}`, output: [{ stdout: "ok\n".repeat(400), stderr: "", outcome: { type: "exit", exit_code: 0 } }] },
      { type: "apply_patch_call", call_id: `ap${k}`, operation: { type: "update_file", path: "a.ts", diff: "-a\n+b" }, status: "completed" },
      { type: "apply_patch_call_output", call_id: `ap${k}`, status: "completed", output: "patched" },
      { type: "mcp_approval_request", id: `mcpr_${k}`, server_label: "deploy", name: "release", arguments: "{}" },
      { type: "mcp_approval_response", approval_request_id: `mcpr_${k}`, approve: true },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: `Done with step ${k}.` }] },
    ];
    const input = [1, 2, 3, 4, 5, 6].flatMap(turn);
    const whole = fitWindow(input, { model: "o3", budget: 200_000, report: true });
    expect(nativeProblems("openai-responses", { input: whole.messages })).toEqual([]);
    // Computer and local shell calls need their ids: their turn's reasoning is never dropped.
    whole.messages.forEach((item, i) => expect(item).toBe(input[i]));
    for (const budget of [1_500, 3_000, 6_000]) {
      const { messages: out, report } = fitWindow(input, { model: "o3", budget, report: true });
      expect(report.tokens).toBeLessThanOrEqual(budget);
      expect(nativeProblems("openai-responses", { input: out })).toEqual([]);
      expect(out.length).toBeLessThan(input.length);
    }
    // A call whose output never came (the caller crashed mid-tool): a made-up output of its own kind.
    const interrupted = [input[0], input[1], input[2], input[4], input[6], input[8], input[10], { type: "message", role: "user", content: "Go on." }];
    const { messages: out } = fitWindow(interrupted, { model: "o3", budget: 50_000, report: true });
    expect(nativeProblems("openai-responses", { input: out })).toEqual([]);
    const types = out.map((item) => (item as { type?: string }).type);
    for (const kind of ["computer_call_output", "local_shell_call_output", "shell_call_output", "apply_patch_call_output", "mcp_approval_response"]) expect(types).toContain(kind);
  });

  it("ai-sdk: an older turn's reasoning parts are dropped, its tool-call parts kept (no orphan result)", () => {
    const input = [
      { role: "user", content: "Lint it." },
      { role: "assistant", content: [{ type: "reasoning", text: "Run the linter first." }, { type: "text", text: "Linting." }, { type: "tool-call", toolCallId: "t1", toolName: "lint", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "t1", toolName: "lint", output: { type: "text", value: "2 warnings" } }] },
      { role: "assistant", content: [{ type: "text", text: "Fixed both." }] },
      { role: "user", content: "Again, please." },
      { role: "assistant", content: [{ type: "reasoning", text: "Once more." }, { type: "tool-call", toolCallId: "t2", toolName: "lint", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "t2", toolName: "lint", output: { type: "text", value: "clean" } }] },
    ];
    const { messages: out, report } = fitWindow(input, { model: "claude-sonnet-4-5", budget: 100_000, report: true });
    expect(report.format).toBe("ai-sdk");
    expect(nativeProblems("ai-sdk", out)).toEqual([]);
    const older = out[1] as { role: string; content: unknown[] };
    expect(older).not.toBe(input[1]);
    expect(older.content).toEqual([input[1]!.content[1], input[1]!.content[2]]);
    expect(older.content[1]).toBe(input[1]!.content[2]);
    for (const i of [0, 2, 3, 4, 5, 6]) expect(out[i]).toBe(input[i]);
  });

  it("anthropic: `system` given beside the array counts against the budget and is not returned", () => {
    const c = conversation(30, 40);
    const messages = itemsOf("anthropic", render("anthropic", c));
    const system = "s ".repeat(1_500);
    const withSystem = fitWindow(messages, { budget: 3_000, system, format: "anthropic", report: true });
    const without = fitWindow(messages, { budget: 3_000, format: "anthropic", report: true });
    expect(withSystem.messages.length).toBeLessThan(without.messages.length);
    expect(requestTokens("anthropic", { system, messages: withSystem.messages })).toBeLessThanOrEqual(3_000);
  });

  it("the placeholder for omitted history is a plain user message of the format", () => {
    const critical: Message = { role: "assistant", content: "the key fact", metadata: { critical: true } };
    const input: Message[] = [{ role: "user", content: "first" }, critical, ...(itemsOf("amplifier", render("amplifier", conversation(40, 60))) as Message[]).slice(1)];
    const out = fitWindow(input, { budget: 2_000 });
    expect(out).toContain(critical);
    expect(out[0]!.role).toBe("user");
  });

  it("tools in each framework's shape count the same", () => {
    const input = render("openai-chat", conversation(2));
    const shapes: unknown[] = [
      TOOLS,
      TOOLS.map((t) => ({ type: "function", name: t.function.name, description: t.function.description, parameters: t.function.parameters, strict: false })),
      TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters })),
      Object.fromEntries(TOOLS.map((t) => [t.function.name, tool({ description: t.function.description!, inputSchema: jsonSchema(t.function.parameters as never) })])),
    ];
    const tokens = shapes.map((tools) => fitWindow(input, { budget: 50_000, tools: tools as never, report: true }).report.toolTokens);
    expect(tokens[0]).toBeGreaterThan(0);
    expect(new Set(tokens).size).toBe(1);
    const zodTools = { read_file: tool({ description: "Read a file", inputSchema: z.object({ path: z.string() }) }) };
    expect(fitWindow(input, { budget: 50_000, tools: zodTools, report: true }).report.toolTokens).toBeGreaterThan(0);
  });
});

describe("fitWindow: errors", () => {
  it("neither model nor budget, or an unknown model without a budget: WINDOW_FIT/NO_BUDGET", () => {
    expect(caught(() => fitWindow([], {})).code).toBe("WINDOW_FIT/NO_BUDGET");
    const unknown = caught(() => fitWindow([], { model: "no-such-model-xyz" }));
    expect(unknown.code).toBe("WINDOW_FIT/NO_BUDGET");
    expect(unknown.message).toContain("no-such-model-xyz");
    expect(caught(() => fitWindow([], { budget: -5 })).code).toBe("INVALID_BUDGET");
  });

  it("a mixed array names the index and the formats expected", () => {
    const input = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "r" } }] },
    ];
    const e = caught(() => fitWindow(input, { budget: 1_000 }));
    expect(e.code).toBe("WINDOW_FIT/MIXED_FORMATS");
    expect(e.details.index).toBe(2);
    expect(e.details.path).toBe("messages[2]");
    expect(String(e.details.expected)).toContain("openai-chat");
    expect(e.message).toContain("ai-sdk");
  });

  it("an item that is no message: WINDOW_FIT/UNKNOWN_FORMAT with its index", () => {
    const e = caught(() => fitWindow([{ role: "user", content: "a" }, 42], { budget: 1_000 }));
    expect(e.code).toBe("WINDOW_FIT/UNKNOWN_FORMAT");
    expect(e.details.index).toBe(1);
    expect(caught(() => fitWindow("hello" as never, { budget: 1_000 })).code).toBe("WINDOW_FIT/UNKNOWN_FORMAT");
  });

  it("a forced format that the items do not match names the index", () => {
    const e = caught(() => fitWindow(render("openai-chat", conversation(1)), { budget: 1_000, format: "ai-sdk" }));
    expect(e.code).toBe("WINDOW_FIT/UNKNOWN_FORMAT");
    expect(e.details.index).toBe(2);
    expect(e.details.expected).toBe("a ai-sdk message");
  });

  it("fit() refuses a strategy that returns a Promise, naming fitAsync; fitAsync awaits it", async () => {
    const input = render("openai-chat", conversation(3));
    const later: CompactionStrategy = { name: "later", compact: async (messages) => messages };
    const e = caught(() => fitWindow(input, { budget: 10_000, strategies: [later] }));
    expect(e.code).toBe("WINDOW_FIT/ASYNC_STRATEGY");
    expect(e.message).toContain("fitAsync");
    const out = await createWindowFitter({ budget: 10_000, strategies: [later] }).fitAsync(input);
    expect(out).toEqual(input);
  });

  it("fitAsync calls on one fitter run in call order; fit() beside one in flight is WINDOW_FIT/BUSY", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: CompactionStrategy = {
      name: "slow",
      async compact(messages) {
        order.push(`start ${messages.length}`);
        if (order.length === 1) await gate;
        order.push(`end ${messages.length}`);
        return messages;
      },
    };
    const fitter = createWindowFitter({ budget: 10_000, strategies: [slow] });
    const input = render("openai-chat", conversation(3)) as unknown[];
    const first = fitter.fitAsync(input.slice(0, 5));
    const second = fitter.fitAsync(input);
    expect(caught(() => fitter.fit(input)).code).toBe("WINDOW_FIT/BUSY");
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(order).toEqual(["start 5", "end 5", `start ${input.length}`, `end ${input.length}`]);
    expect(a).toEqual(input.slice(0, 5));
    expect(b).toEqual(input);
    expect(() => fitter.fit(input)).toThrow(/Promise/);
  });

  it("a history whose instructions alone exceed the budget: BUDGET_TOO_SMALL with the numbers", () => {
    const e = caught(() => fitWindow([{ role: "system", content: "word ".repeat(3_000) }, { role: "user", content: "hi" }], { budget: 500 }));
    expect(e.code).toBe("BUDGET_TOO_SMALL");
    expect(e.details.budget).toBe(500);
  });
});

describe("strategies", () => {
  it("run in order over the converted history; their new messages are written in the format", () => {
    const input = render("ai-sdk", conversation(10, 30)) as unknown[];
    const seen: number[] = [];
    const summary: CompactionStrategy = {
      name: "summary",
      compact(messages) {
        seen.push(messages.length);
        const rest = messages.slice(1 + 4 * 5);
        return [messages[0]!, { role: "user", content: "Summary of turns 0-4." }, ...rest];
      },
    };
    const { messages: out, report } = fitWindow(input, { budget: 50_000, strategies: [summary], report: true });
    expect(seen).toEqual([1 + 4 * 10]);
    expect(out[0]).toBe(input[0]);
    expect(out[1]).toEqual({ role: "user", content: "Summary of turns 0-4." });
    expect(out.slice(2)).toEqual(input.slice(1 + 4 * 5));
    expect(out[2]).toBe(input[21]);
    expect(report.created).toBe(1);
    expect(report.items.filter((d) => d.reason === "strategy")).toHaveLength(20);
  });
});

describe("strategies in each format", () => {
  for (const format of FORMATS) {
    it(`${format}: a strategy's summary (a system message) is written in the format, the window valid for its API`, () => {
      const input = render(format, conversation(12, 30));
      const summarize: CompactionStrategy = {
        name: "summarize",
        compact(messages) {
          const firstTurn = messages.findIndex((m) => m.role === "user");
          return [...messages.slice(0, firstTurn), { role: "system", content: "Summary: the first eight turns read files." }, ...messages.slice(firstTurn + 8 * 4)];
        },
      };
      const { messages: out, report } = fitWindow(input, { budget: 50_000, strategies: [summarize], report: true });
      expect(report.created).toBe(1);
      expect(JSON.stringify(out)).toContain("Summary: the first eight turns");
      expect(nativeProblems(format, out)).toEqual([]);
      expect(requestTokens(format, out)).toBeLessThanOrEqual(50_000);
    });
  }
});

describe("createWindowFitter", () => {
  for (const format of FORMATS) {
    it(`${format}: an agent loop's windows keep their prefix (the cut moves in large steps), under budget every call`, () => {
      const c = conversation(80, 60);
      const full = itemsOf(format, render(format, c));
      const envelope = render(format, conversation(0));
      const fitter = createWindowFitter({ budget: 6_000 });
      let previous: unknown[] | undefined;
      const shares: number[] = [];
      for (const n of requestPoints(format, c)) {
        const items = full.slice(0, n);
        const input = Array.isArray(envelope) ? items : { ...(envelope as object), [format === "anthropic" ? "messages" : "input"]: items };
        const out = fitter.fit(input);
        const window = itemsOf(format, out);
        expect(requestTokens(format, out)).toBeLessThanOrEqual(6_000);
        expect(nativeProblems(format, out)).toEqual([]);
        if (previous) shares.push(prefixShare(previous, window));
        previous = window;
      }
      // 0.9 → 0.7 of the budget: a cut move drops ~20 % of the window, every ~15 calls here.
      const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
      expect(mean).toBeGreaterThan(0.95);
      expect(shares.filter((x) => x === 1).length / shares.length).toBeGreaterThan(0.85);
      expect(fitter.format).toBe(format);
    });
  }

  it("an edited history is re-read from the edit: a valid window with the edit, the items before it the caller's", () => {
    const input = render("openai-chat", conversation(30, 40)) as unknown[];
    const fitter = createWindowFitter({ budget: 3_000 });
    const first = fitter.fit(input);
    const edited = [...input];
    const edit = { role: "user", content: "an edited question" };
    edited[input.length - 4] = edit;
    const a = fitter.fit(edited);
    expect(a).toContain(edit);
    expect(nativeProblems("openai-chat", a)).toEqual([]);
    expect(requestTokens("openai-chat", a)).toBeLessThanOrEqual(3_000);
    for (const item of a) expect(edited).toContain(item);
    // The cut holds across the edit (hysteresis): the window starts where the last one did.
    expect(a.slice(0, 2)).toEqual(first.slice(0, 2));
    const shorter = input.slice(0, 40);
    const b = fitter.fit(shorter);
    expect(nativeProblems("openai-chat", b)).toEqual([]);
    for (const item of b) expect(shorter).toContain(item);
  });

  describe("appendOnly", () => {
    /** An array whose reads below `watchBelow` are counted (the items the last call had). */
    function watched(items: unknown[], watchBelow: number) {
      const reads = new Set<number>();
      const proxy = new Proxy(items, {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key) && Number(key) < watchBelow) reads.add(Number(key));
          return Reflect.get(target, key, receiver);
        },
      });
      return { proxy, reads };
    }

    for (const format of FORMATS) {
      it(`${format}: a loop that pushes gets the very windows it gets without the option, reading only the new items`, () => {
        const c = conversation(60, 50);
        const full = itemsOf(format, render(format, c));
        const envelope = render(format, conversation(0));
        const wrap = (items: unknown[]) => (Array.isArray(envelope) ? items : { ...(envelope as object), [format === "anthropic" ? "messages" : "input"]: items });
        const plain = createWindowFitter({ budget: 5_000 });
        const appending = createWindowFitter({ budget: 5_000, appendOnly: true });
        const grown: unknown[] = [];
        let had = 0;
        for (const n of requestPoints(format, c)) {
          while (grown.length < n) grown.push(full[grown.length]);
          const expected = itemsOf(format, plain.fit(wrap(grown.slice())));
          const { proxy, reads } = watched(grown, had);
          const window = itemsOf(format, appending.fit(wrap(proxy)));
          expect(window).toHaveLength(expected.length);
          window.forEach((item, i) => expect(item).toStrictEqual(expected[i]));
          // Old items read: those the window is written from (O(window)), the first and the last one
          // read (the check), and the last group's items (it may grow) — never the history before.
          const inWindow = new Set(window);
          const other = [...reads].filter((i) => i !== 0 && i !== had - 1 && !inWindow.has(grown[i]));
          expect(other.length).toBeLessThanOrEqual(3);
          had = n;
        }
      });
    }

    it("another conversation, a shorter array or a new first item: read whole, as without the option", () => {
      const input = render("openai-chat", conversation(30, 40)) as unknown[];
      const fitter = createWindowFitter({ budget: 3_000, appendOnly: true });
      const reference = createWindowFitter({ budget: 3_000 });
      fitter.fit(input);
      const other = render("openai-chat", conversation(30, 40, 500)) as unknown[];
      const shorter = input.slice(0, 20);
      const newFirst = [{ role: "system", content: "You are terse." }, ...input.slice(1)];
      for (const next of [other, shorter, newFirst]) {
        const window = fitter.fit(next);
        expect(window).toStrictEqual(reference.fit(next));
        expect(nativeProblems("openai-chat", window)).toEqual([]);
        for (const item of window) if (!next.includes(item)) expect((item as { role: string }).role).not.toBe("system");
      }
    });

    it("appendOnly that is not a boolean: WINDOW_FIT/INVALID_OPTIONS naming it", () => {
      try {
        createWindowFitter({ budget: 1_000, appendOnly: "yes" as unknown as boolean });
        expect.unreachable();
      } catch (error) {
        expect(isAmplifierError(error) && error.code).toBe("WINDOW_FIT/INVALID_OPTIONS");
        expect((error as { details?: { path?: string } }).details?.path).toBe("options.appendOnly");
      }
    });
  });

  it("older turns' messages sent without their thinking are the same objects call after call (langchain and ours: not rebuilt per call)", () => {
    const think = (n: number) => ({ type: "thinking", thinking: `Weighing option ${n}. `.repeat(6), signature: `Sig${n}` });
    const langchain: unknown[] = [];
    const ours: Message[] = [{ role: "system", content: "Be terse." }];
    const turn = (format: "langchain" | "amplifier", n: number) => {
      const call = { id: `call_${n}`, name: "search", args: { q: `q${n}` }, type: "tool_call" as const };
      if (format === "langchain") langchain.push(
        new HumanMessage(`question ${n}`),
        new AIMessage({ content: [think(n), { type: "text", text: `looking ${n}` }] as never, tool_calls: [call] }),
        new ToolMessage({ content: `result ${n}`, tool_call_id: call.id, name: "search" }),
        new AIMessage({ content: [think(n + 100), { type: "text", text: `answer ${n}` }] as never }),
      );
      else ours.push(
        { role: "user", content: `question ${n}` },
        { role: "assistant", content: [think(n) as never, { type: "text", text: `looking ${n}` }], tool_calls: [{ id: call.id, type: "function", function: { name: "search", arguments: "{}" } }] },
        { role: "tool", tool_call_id: call.id, content: `result ${n}` },
        { role: "assistant", content: [think(n + 100) as never, { type: "text", text: `answer ${n}` }] },
      );
    };
    const strippedIn = (window: readonly unknown[], given: readonly unknown[]) => window.filter((item) => !given.includes(item));
    for (const [format, items] of [["langchain", langchain], ["amplifier", ours]] as const) {
      for (let n = 0; n < 3; n++) turn(format, n);
      const fitter = createWindowFitter({ budget: 100_000, format, appendOnly: true });
      let previous = strippedIn(fitter.fit(items), items);
      expect(previous).toHaveLength(4);
      for (let n = 3; n < 8; n++) {
        turn(format, n);
        const window = fitter.fit(items) as unknown[];
        const stripped = strippedIn(window, items);
        // The older turns' assistant messages without their thinking: two more each turn, the earlier ones the very same objects.
        expect(stripped).toHaveLength(previous.length + 2);
        previous.forEach((item, i) => expect(stripped[i]).toBe(item));
        for (const item of stripped) expect(JSON.stringify((item as { content: unknown }).content)).not.toContain('"thinking"');
        // The last turn keeps its thinking as given (the caller's own objects).
        expect(window.slice(-3)).toEqual(items.slice(-3));
        window.slice(-3).forEach((item, i) => expect(item).toBe(items[items.length - 3 + i]));
        previous = stripped;
      }
      // (nativeProblems reads amplifier messages as Chat Completions', where thinking blocks are not content.)
      if (format === "langchain") expect(nativeProblems(format, fitter.fit(items))).toEqual([]);
    }
  });

  it("the same objects in a new array give the same window", () => {
    const input = render("langchain", conversation(30, 40)) as unknown[];
    const fitter = createWindowFitter({ budget: 3_000 });
    const a = fitter.fit(input);
    const b = fitter.fit([...input]);
    expect(b).toHaveLength(a.length);
    b.forEach((item, i) => expect(item).toBe(a[i]));
  });

  it("langchain: an interrupted call's made-up result is rebuilt with ToolMessage once the conversation holds one (incremental write = whole write)", () => {
    const call = (id: string) => new AIMessage({ content: "", tool_calls: [{ id, name: "search", args: {}, type: "tool_call" }] });
    const items: unknown[] = [new HumanMessage("go"), call("c0"), new HumanMessage("and then?")];
    const fitter = createWindowFitter({ budget: 4_000 });
    const first = fitter.fit(items);
    // No ToolMessage in the input yet: the made-up result is a message-like LangChain coerces.
    expect(first[2]).not.toBeInstanceOf(ToolMessage);
    expect(first[2]).toMatchObject({ role: "tool", tool_call_id: "c0" });
    items.push(call("c1"), new ToolMessage({ content: "found", tool_call_id: "c1", name: "search" }));
    const incremental = fitter.fit(items);
    const whole = fitter.fit(items, { report: true }).messages;
    expect(incremental[2]).toBeInstanceOf(ToolMessage);
    expect(incremental).toEqual(whole);
    expect(nativeProblems("langchain", incremental)).toEqual([]);
  });

  it("langchain: a window given back (plain message-likes beside the classes) is read again", () => {
    const input = [new HumanMessage("go"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: {}, type: "tool_call" }] })];
    const fitter = createWindowFitter({ budget: 2_000 });
    const window = fitter.fit(input);
    expect(window[2]).toMatchObject({ role: "tool", tool_call_id: "c1" });
    const next = fitter.fit([...window, new HumanMessage("and now?")]);
    expect(next).toHaveLength(4);
    expect(nativeProblems("langchain", next)).toEqual([]);
  });
});
