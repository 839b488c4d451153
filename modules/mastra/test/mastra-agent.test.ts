/**
 * Done-when of issue 27 for Mastra: an agent of 300 turns with tool calls through a real Mastra
 * Agent (@mastra/core 0.24, the last line that runs on Node 20) with WindowProcessor in its
 * `inputProcessors`, against the fake OpenAI server on 127.0.0.1 — every request valid for the
 * Chat Completions API, under the budget counted from the request body, tool pairs intact, the
 * prefix kept ≥ 95 % between consecutive requests. Then the same conversation with Mastra's own
 * TokenLimiter where Mastra 0.x puts it (a memory processor): its windows break tool pairing.
 *
 * The agent runs in a plain Node child (agent-run.mjs; why there: its header) and is the README's
 * "Already on Mastra? Add one line." agent pointed at the fake server.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeApiServer, type FakeApiServer } from "../../../test/providers/fake-api-server.js";
import { alteredCalls, brokenPairs, prefixShares, requestTokens } from "./request-checks.js";
import { scriptedModel } from "./scripted-model.js";

const TURNS = 300;
/** What every request may hold (prompt tokens: messages + tools), counted from the body. */
const REQUEST_BUDGET = 40_000;
/**
 * Mastra 0.x runs input processors once per generate() call, before its first step: the steps
 * after a tool call add the call and its result, which the processor does not see. The processor
 * fits to the budget less room for one tool round (a call and its result: ~750 tokens at most here).
 */
const ROOM = 1_500;
const AGENT = fileURLToPath(new URL("./agent-run.mjs", import.meta.url));

function runAgent(url: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT, url, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`agent-run.mjs ${args.join(" ")} exited ${code}:\n${err.slice(-4000)}`))));
  });
}

let fake: FakeApiServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const problemsOf = (received: FakeApiServer["received"], check: (body: Record<string, unknown>) => string[]): string[] => received.flatMap((r, i) => check(r.body).map((p) => `request ${i}: ${p}`));

describe("a Mastra agent of 300 turns with tool calls", () => {
  it("with WindowProcessor in inputProcessors: every request valid, under budget, pairs intact, calls as made, prefix kept ≥ 95 %", async () => {
    const model = scriptedModel();
    fake = await startFakeApiServer(model.reply);
    const summary = await runAgent(fake.url, ["window", String(TURNS), String(REQUEST_BUDGET), String(ROOM)]);
    expect(summary.turns).toBe(TURNS);
    const received = fake.received;
    expect(received.length).toBe(2 * TURNS); // a tool call and an answer per turn
    expect(received.flatMap((r, i) => r.problems.map((p) => `request ${i}: ${p}`))).toEqual([]);
    const tokens = received.map((r) => requestTokens(r.body, "gpt-4o"));
    expect(Math.max(...tokens)).toBeLessThanOrEqual(REQUEST_BUDGET);
    // The conversation outgrew the budget several times over: windows were cut, not merely passed on.
    const history = summary.historyMessages as number;
    expect(history).toBe(4 * TURNS); // user, call, result, answer per turn (the AI SDK's response messages)
    expect(Math.max(...received.map((r) => (r.body.messages as unknown[]).length))).toBeLessThan(history / 2);
    expect(problemsOf(received, brokenPairs)).toEqual([]);
    expect(problemsOf(received, (body) => alteredCalls(body, model.made))).toEqual([]);
    const shares = prefixShares(received.map((r) => r.body));
    console.log(`WindowProcessor: ${received.length} requests, max ${Math.max(...tokens)} / ${REQUEST_BUDGET} tokens, prefix kept ${(mean(shares) * 100).toFixed(2)} % on average (min ${(Math.min(...shares) * 100).toFixed(1)} %; ${shares.filter((s) => s < 1).length} requests did not start with the whole previous one)`);
    expect(mean(shares)).toBeGreaterThanOrEqual(0.95);
  }, 900_000);

  it("with Mastra's TokenLimiter in its slot (a memory processor): windows with broken pairs, calls rewritten, prefix lost", async () => {
    const model = scriptedModel();
    fake = await startFakeApiServer(model.reply);
    const summary = await runAgent(fake.url, ["token-limiter", String(TURNS), String(REQUEST_BUDGET - ROOM)]);
    expect(summary.turns).toBe(TURNS);
    const received = fake.received;
    const tokens = received.map((r) => requestTokens(r.body, "gpt-4o"));
    const altered = problemsOf(received, (body) => alteredCalls(body, model.made));
    const shares = prefixShares(received.map((r) => r.body));
    console.log(
      `TokenLimiter: ${String(summary.windows)} windows, ${String(summary.trimmedWindows)} trimmed, ${String(summary.windowsWithBrokenPairs)} with a tool call or result whose other half it dropped (${String(summary.orphans)} halves); ` +
        `${received.length} requests, ${received.filter((r) => r.problems.length > 0).length} rejected, ${tokens.filter((t) => t > REQUEST_BUDGET).length} over ${REQUEST_BUDGET} tokens (max ${Math.max(...tokens)}), ${altered.length} tool calls not as the model made them (${altered[0] ?? ""}); prefix kept ${(mean(shares) * 100).toFixed(2)} % on average`,
    );
    // TokenLimiter walks back from the newest message and stops at the first that does not fit:
    // when that one is a tool call (a saveNote with its note), its result is kept without it.
    expect(summary.windowsWithBrokenPairs).toBeGreaterThan(0);
    // Mastra then sends the orphaned result under a call it rebuilds without the arguments.
    expect(altered.length).toBeGreaterThan(0);
    expect(mean(shares)).toBeLessThan(0.95);
  }, 900_000);
});
