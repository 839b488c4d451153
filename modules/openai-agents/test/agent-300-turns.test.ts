import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySession, type AgentInputItem } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryStoreConfig } from "@amplifier-ts/stores";
import { AmplifierSession } from "../index.js";
import type { FakeApiServer, Received } from "../../../test/providers/fake-api-server.js";
import { dropSchemas, PG_URL, testSchemaName } from "../../../test/stores/postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "../../../test/stores/redis-support.js";
import { chatUserTurn, INSTRUCTIONS, lookup, startFakeModel, userTurn } from "./agent-loop.js";
import { chatPairItems, pairProblems, prefixShare, requestTokens, withoutItemIds } from "./request-checks.js";

/**
 * Done-when of issue 27 for the OpenAI Agents SDK: an agent of 300 turns with tool calls, run by
 * the SDK's own `run()` with an AmplifierSession on each store, against the fake Responses API on
 * 127.0.0.1. The session is closed after turn 149 and a NEW AmplifierSession on the same id and
 * store continues (resume). Every request the fake received:
 *
 * | check | how |
 * |---|---|
 * | valid | the fake applies the Responses API's rules (test/adapters/api-rules.ts): 0 problems |
 * | under budget | counted from the request body alone with our gpt-4o counter (request-checks.ts), ≤ BUDGET |
 * | tool pairs | every call with its output, every output after its call, reasoning followed by its item |
 * | prefix | mean share of the previous request's input items the next starts with ≥ 95 %, as sent (and also with the function calls' item ids set aside, which the SDK drops when it persists a run) |
 *
 * The same on the Chat Completions API (JSONL), through a Runner whose OpenAIProvider does not use
 * Responses: the session's items are the same whichever API the model speaks.
 *
 * The SDK's MemorySession on the same loop: its requests pass the budget within tens of turns
 * (it keeps everything), which is why the session fits on read.
 */
const TURNS = 300;
const RESUME_AT = 150;
const BUDGET = 24_000;
const TURN_RESERVE = 3_000;

let server: FakeApiServer;
beforeAll(async () => {
  server = await startFakeModel();
});
afterAll(() => server?.close());

interface LoopFigures {
  requests: number;
  problems: string[];
  maxTokens: number;
  overBudget: number;
  pairProblems: string[];
  prefixMean: number;
  prefixMeanRaw: number;
  cuts: number;
  firstCutTurn: number | undefined;
}

function figures(received: readonly Received[]): LoopFigures {
  const tokens = received.map((r) => requestTokens(r.body));
  // What was sent, in order (Responses: input items; Chat: messages, instructions first), and the same as pairing items.
  const inputs = received.map((r) => (r.api === "chat" ? r.body.messages : r.body.input) as Record<string, unknown>[]);
  const pairItems = received.map((r, i) => (r.api === "chat" ? chatPairItems(r.body) : inputs[i]!));
  const shares = inputs.slice(1).map((input, i) => prefixShare(withoutItemIds(inputs[i]!), withoutItemIds(input)));
  const raw = inputs.slice(1).map((input, i) => prefixShare(inputs[i]!, input));
  const firstCut = inputs.findIndex((input) => !JSON.stringify(input.find((item) => item.role === "user")).includes("turn 0:"));
  return {
    requests: received.length,
    problems: received.flatMap((r) => r.problems),
    maxTokens: Math.max(...tokens),
    overBudget: tokens.filter((t) => t > BUDGET).length,
    pairProblems: pairItems.flatMap((input, i) => pairProblems(input).map((p) => `request ${i}: ${p}`)),
    prefixMean: mean(shares),
    prefixMeanRaw: mean(raw),
    // A pair where the window's start moved (Chat keeps the instructions first, so its share is not 0 there).
    cuts: shares.filter((s) => s < 0.5).length,
    firstCutTurn: firstCut < 0 ? undefined : turnOfRequest(inputs[firstCut]!),
  };
}

const STORES: { name: string; config: () => { config: HistoryStoreConfig | string; cleanup: () => Promise<void> } }[] = [
  {
    name: "JSONL",
    config: () => {
      const storagePath = mkdtempSync(join(tmpdir(), "amp-openai-agents-"));
      // A folder path, as the root README's snippet gives it ("./sessions").
      return { config: storagePath, cleanup: async () => rmSync(storagePath, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL",
    config: () => {
      const schema = testSchemaName();
      return { config: { type: "postgres", url: PG_URL, schema }, cleanup: () => dropSchemas(schema) };
    },
  },
  {
    name: "Redis",
    config: () => {
      const keyPrefix = testKeyPrefix();
      return { config: { type: "redis", url: REDIS_URL, keyPrefix }, cleanup: () => dropPrefixes(keyPrefix) };
    },
  },
];

describe("OpenAI Agents SDK run() with an AmplifierSession: 300 turns with tool calls against the fake OpenAI API", () => {
  let memoryItems: AgentInputItem[] = [];

  it("the SDK's MemorySession on the same loop passes the budget (it keeps every item)", async () => {
    const from = server.received.length;
    const session = new MemorySession({ sessionId: "memory" });
    let overflowTurn: number | undefined;
    for (let k = 0; k < TURNS && overflowTurn === undefined; k++) {
      const before = server.received.length;
      await userTurn(k, session);
      if (server.received.slice(before).some((r) => requestTokens(r.body) > BUDGET)) overflowTurn = k;
    }
    expect(server.received.slice(from).flatMap((r) => r.problems)).toEqual([]);
    memoryItems = await session.getItems();
    console.log(`MemorySession: request over the ${BUDGET}-token budget at turn ${overflowTurn} (${memoryItems.length} items kept)`);
    expect(overflowTurn).toBeDefined();
    expect(overflowTurn!).toBeLessThan(TURNS);
  });

  for (const store of STORES) {
    it(`${store.name}: every request valid, under budget, pairs intact, prefix ≥ 95 %; resumed by a new session at turn ${RESUME_AT}`, async () => {
      const { config, cleanup } = store.config();
      const options = { sessionId: "agent-300", store: config, model: "gpt-4o", budget: BUDGET, turnReserve: TURN_RESERVE, instructions: INSTRUCTIONS, tools: [lookup] };
      const from = server.received.length;
      try {
        const first = new AmplifierSession(options);
        for (let k = 0; k < RESUME_AT; k++) await userTurn(k, first);
        const storedBefore = await first.getStoredItems();
        await first.close();

        // Resume: a new session object on the same id and store continues the conversation.
        const resumed = new AmplifierSession(options);
        expect(await resumed.getStoredItems()).toEqual(storedBefore);
        const resumeRequest = server.received.length;
        for (let k = RESUME_AT; k < TURNS; k++) await userTurn(k, resumed);
        const firstAfterResume = JSON.stringify(server.received[resumeRequest]!.body.input);
        expect(firstAfterResume).toContain(`turn ${RESUME_AT - 1}:`);
        expect(firstAfterResume).toContain(`(turn ${RESUME_AT - 1})`); // the answer of the last turn before the resume

        // Items round-trip exactly: the first turns, item for item, as the SDK's MemorySession kept them.
        const stored = await resumed.getStoredItems();
        expect(stored.slice(0, memoryItems.length)).toEqual(memoryItems);
        expect(stored.filter((item) => "role" in item && item.role === "user")).toHaveLength(TURNS);
        await resumed.close();

        const f = figures(server.received.slice(from));
        console.log(`${store.name}: ${JSON.stringify({ ...f, pairProblems: f.pairProblems.length, problems: f.problems.length })}`);
        expect(f.requests).toBeGreaterThanOrEqual(2 * TURNS);
        expect(f.problems).toEqual([]);
        expect(f.overBudget).toBe(0);
        expect(f.maxTokens).toBeLessThanOrEqual(BUDGET);
        expect(f.pairProblems).toEqual([]);
        expect(f.firstCutTurn, "the window was cut: later requests no longer start at turn 0").toBeDefined();
        expect(f.prefixMeanRaw, "as sent").toBeGreaterThanOrEqual(0.95);
        expect(f.prefixMean, "function call ids aside").toBeGreaterThanOrEqual(0.95);
      } finally {
        await cleanup();
      }
    }, 600_000);
  }

  it("Chat Completions (a Runner whose provider does not use Responses), JSONL: the same checks over 300 turns", async () => {
    const storagePath = mkdtempSync(join(tmpdir(), "amp-openai-agents-chat-"));
    const from = server.received.length;
    try {
      const session = new AmplifierSession({ sessionId: "agent-chat", store: storagePath, model: "gpt-4o", budget: BUDGET, turnReserve: TURN_RESERVE, instructions: INSTRUCTIONS, tools: [lookup] });
      for (let k = 0; k < TURNS; k++) await chatUserTurn(k, session);
      await session.close();
      const received = server.received.slice(from);
      expect(received.every((r) => r.api === "chat")).toBe(true);
      const f = figures(received);
      console.log(`Chat/JSONL: ${JSON.stringify({ ...f, pairProblems: f.pairProblems.length, problems: f.problems.length })}`);
      expect(f.requests).toBeGreaterThanOrEqual(2 * TURNS);
      expect(f.problems).toEqual([]);
      expect(f.overBudget).toBe(0);
      expect(f.pairProblems).toEqual([]);
      expect(f.firstCutTurn).toBeDefined();
      expect(f.prefixMeanRaw).toBeGreaterThanOrEqual(0.95);
    } finally {
      rmSync(storagePath, { recursive: true, force: true });
    }
  }, 600_000);
});

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

function turnOfRequest(input: readonly Record<string, unknown>[]): number | undefined {
  for (let i = input.length - 1; i >= 0; i--) {
    const match = /turn (\d+):/.exec(JSON.stringify(input[i]!.content ?? ""));
    if (input[i]!.role === "user" && match) return Number(match[1]);
  }
  return undefined;
}
