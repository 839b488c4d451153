/**
 * Issue 28 part 3, done-when: a session (createSession, a real provider module, the context
 * manager, the orchestrator loop of the README) with server-side compaction enabled runs 300 turns
 * against the local fake API server (fake-compaction.ts: the documented shapes) — compaction items
 * round-tripped byte-identical and priced, 0 rejected requests — for OpenAI Responses and Anthropic.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { forEachContentPart, type AmplifierEvents, type BilledUsage, type Message, type ToolCallPart } from "../../contracts/index.js";
import { createSession } from "../../src/session/index.js";
import { runTool, startTurn } from "../../src/turn/index.js";
import { API_KEY, startFakeApiServer, type Api, type FakeApiServer } from "./fake-api-server.js";

const TURNS = 300;
const PROVIDERS = {
  anthropic: {
    module: "provider-anthropic",
    config: { model: "claude-sonnet-4-6", contextManagement: { edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 50_000 } }] } },
  },
  openai: {
    module: "provider-openai",
    config: { model: "gpt-4o", api: "responses", contextManagement: [{ type: "compaction", compact_threshold: 20_000 }] },
  },
} as const;

const TOOL_MODULE = `export function mount() {
  return {
    definition: { type: "function", function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
    execute: ({ path }) => ({ output: "contents of " + path + ": " + "line of code; ".repeat(80) }),
  };
}
`;

/** ~2,000 characters of distinct prose per turn (≈ 400 tokens), so the conversation passes the thresholds. */
const prose = (turn: number, who: string) => Array.from({ length: 40 }, (_, k) => `${who} ${turn}.${k} discusses module ${(turn * 7 + k) % 97}.`).join(" ");

/** The newest item of a request: a tool result answers with text; a prompt asking to read answers with a call. */
function replyFor(api: Api, body: Record<string, unknown>, index: number) {
  const list = (api === "anthropic" ? body.messages : body.input) as Record<string, unknown>[];
  const last = JSON.stringify(list[list.length - 1]);
  const afterResult = api === "anthropic" ? last.includes('"tool_result"') : last.includes('"function_call_output"');
  if (!afterResult && last.includes("please read")) return { id: `answer_${index}`, text: "Reading it.", toolCalls: [{ id: `call_${index}`, name: "read_file", arguments: { path: `src/file-${index}.ts` } }] };
  return { id: `answer_${index}`, text: prose(index, "Answer") };
}

let server: FakeApiServer;
let dir: string;
beforeAll(async () => {
  server = await startFakeApiServer(replyFor);
  dir = mkdtempSync(join(tmpdir(), "provider-compaction-"));
  writeFileSync(join(dir, "read-file-tool.mjs"), TOOL_MODULE);
  vi.stubEnv("OPENAI_API_KEY", API_KEY);
  vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
  vi.stubEnv("ANTHROPIC_API_KEY", API_KEY);
  vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("server-side compaction: 300 turns through a session against the fake APIs", () => {
  it.each(Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[])("%s: compaction round-tripped and priced, 0 rejected requests", async (name) => {
    const path = join(dir, `${name}.amplifier.config.json`);
    writeFileSync(
      path,
      JSON.stringify({
        session: { context: { module: "context-simple", config: {} } },
        providers: [{ name: "model", module: PROVIDERS[name].module, config: PROVIDERS[name].config }],
        tools: [{ name: "read_file", module: "./read-file-tool.mjs" }],
        hooks: [],
      }),
    );
    const session = await createSession(path);
    const { context, coordinator } = session;
    const provider = coordinator.get("providers", "model");
    if (!provider?.complete) throw new Error("no provider");
    const tools = Object.values(coordinator.get("tools")).map((tool) => tool.definition);
    const compactions: AmplifierEvents["context:post_compact"][] = [];
    const bills: BilledUsage[] = [];
    coordinator.hooks.on("context:post_compact", (event) => void compactions.push(event));
    coordinator.hooks.on("provider:response", (event) => void (event.usage && bills.push(event.usage)));
    const answers: Message[] = [];
    const before = server.received.length;

    await context.addMessage({ role: "system", content: "You are a careful coding agent." });
    for (let t = 0; t < TURNS; t++) {
      const turn = await startTurn(coordinator, `${t % 10 === 3 ? "please read the next file. " : ""}${prose(t, "User")}`);
      for (let step = 0; step < 4; step++) {
        const messages = await context.getMessagesForRequest(undefined, provider, { tools, extraMessages: turn.extraMessages });
        const { message } = await provider.complete({ messages, tools });
        await context.addMessage(message);
        answers.push(message);
        const calls: ToolCallPart[] = [];
        let text = "";
        forEachContentPart(message, { text: (s) => void (text += s), toolCall: (call) => void calls.push(call) });
        if (calls.length === 0) {
          await turn.complete(text);
          break;
        }
        for (const call of calls) await context.addMessage({ role: "tool", tool_call_id: call.id, content: (await runTool(coordinator, call)).output });
      }
    }
    const requests = server.received.slice(before);
    const history = await context.getMessages();
    const spend = (context as unknown as { spend: { compactions: number; compactionUsd: number; answerUsd: number; totalUsd: number; unpriced: number } }).spend;
    await session.close();

    // 0 rejected: every request passed the API's rules and the compaction checks.
    expect(requests.flatMap((r) => r.problems)).toEqual([]);
    expect(requests.length).toBe(TURNS + TURNS / 10);
    // The provider compacted several times; every request after a compaction sent its block/item back.
    const compacted = requests.filter((r) => r.compaction?.compacted).length;
    expect(compacted).toBeGreaterThanOrEqual(name === "anthropic" ? 4 : 10);
    const afterFirst = requests.slice(requests.findIndex((r) => r.compaction?.compacted) + 1);
    expect(afterFirst.every((r) => r.compaction?.latestSentBack === true)).toBe(true);
    // What is sent stays bounded: the part the provider compacted is not sent again.
    const threshold = name === "anthropic" ? 50_000 : 20_000;
    expect(Math.max(...afterFirst.map((r) => r.compaction!.measured))).toBeLessThan(threshold + 3_000);
    // Stored byte-identical: each compaction the server returned is in the history as its data.
    const stored = history.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === "compaction") : []));
    expect(stored).toHaveLength(compacted);
    const returned = answers.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === "compaction") : []));
    expect(stored.map((b) => JSON.stringify(b))).toEqual(returned.map((b) => JSON.stringify(b)));
    // Nothing lost: the stored history holds every turn.
    expect(history.filter((m) => m.role === "user")).toHaveLength(TURNS);
    // Reported as the provider's compactions, and priced apart.
    expect(compactions.filter((e) => e.source === "provider")).toHaveLength(compacted);
    expect(compactions.every((e) => e.source === "provider" && e.strategies[0] === (name === "anthropic" ? "provider:anthropic" : "provider:openai-responses"))).toBe(true);
    expect(bills.filter((b) => b.compaction !== undefined)).toHaveLength(compacted);
    expect(spend.compactions).toBe(compacted);
    expect(spend.unpriced).toBe(0);
    expect(spend.totalUsd).toBeCloseTo(spend.answerUsd + spend.compactionUsd, 10);
    if (name === "anthropic") {
      // Anthropic bills each compaction iteration apart: summed into the bill's compaction, priced at the model's rates.
      expect(bills.filter((b) => b.compaction).every((b) => (b.compaction!.inputTokens ?? 0) >= threshold)).toBe(true);
      expect(spend.compactionUsd).toBeGreaterThan(0);
    } else {
      // OpenAI reports no split: the compaction is counted, its cost inside the answer's.
      expect(spend.compactionUsd).toBe(0);
    }
  }, 240_000);
});
