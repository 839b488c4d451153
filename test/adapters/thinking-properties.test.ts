/**
 * Issue 28, part 2: random histories with thinking (Anthropic) and reasoning (OpenAI Responses),
 * built from what the APIs issue and read back through the adapters as a session would store them,
 * go through every shipped strategies pipeline and the window at random budgets, then through every
 * adapter. Every request passes the checker written from the providers' documented rules
 * (api-rules.ts, itself tested on hand-made violations in api-rules.test.ts):
 *
 * | adapter            | request checked                                                                 |
 * |--------------------|---------------------------------------------------------------------------------|
 * | Anthropic          | anthropicProblems (thinking enabled when the history was made with it) + anthropicThinkingProblems against the issued messages |
 * | OpenAI Responses   | openAIResponsesProblems + openAIReasoningProblems against the issued outputs     |
 * | OpenAI Chat        | openAIChatProblems (tool pairing)                                                 |
 * | AI SDK, LangChain  | their pairing, then read back and sent to Anthropic / Responses: the same checks (the framework's provider sends what it was given) |
 *
 * And the turn in progress (the latest tool calls with their thinking and results) is in every
 * window — or the request failed with BUDGET_TOO_SMALL. The stored history is never changed.
 * Runs: AMPLIFIER_PROPERTY_RUNS (default 150 here; each run one history through one pipeline,
 * chosen at random, at three budgets, through all five adapters).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Message } from "@amplifier-ts/contracts";
import { propertyRuns } from "../../testing/property-runs.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { fromAISDK, fromAnthropic, fromLangChain, fromOpenAIResponses, toAISDK, toAnthropic, toLangChain, toOpenAIChat, toOpenAIResponses } from "../../modules/adapters/index.js";
import { anthropicProblems, anthropicThinkingProblems, openAIChatProblems, openAIReasoningProblems, openAIResponsesProblems, type IssuedAnthropicMessage } from "./api-rules.js";
import { aiSdkPairingProblems } from "./ai-sdk-rules.js";

const numRuns = propertyRuns(150);
type Json = Record<string, unknown>;

/** The shipped pipelines (contracts/STRATEGIES.md, the conformance suite's list) and every strategy alone, some at tight limits. */
const PIPELINES: Record<string, unknown[]> = {
  none: [],
  "sliding-window": [{ use: "sliding-window", maxMessages: 8 }],
  "tool-result-compaction": [{ use: "tool-result-compaction", maxChars: 300 }],
  "selective-tool-call": [{ use: "selective-tool-call", keepRecentGroups: 2 }],
  truncation: [{ use: "truncation", maxMessages: 6, maxChars: 4_000 }],
  "truncation 300 chars": [{ use: "truncation", maxChars: 300 }],
  "token-budget": [{ use: "token-budget", budget: 1_500 }],
  "message-window": [{ use: "message-window", n: 3 }],
  "token-window": [{ use: "token-window", maxTokens: 400 }],
  summarization: [{ use: "summarization", recentTokenBudget: 300, minOldTokens: 50, summaryMaxTokens: 100 }],
  summarizing: [{ use: "summarizing", threshold: 0.3, recentRatio: 0.1, summaryMaxTokens: 100, contextWindow: 3_000 }],
  hybrid: [{ use: "hybrid", recentN: 3, maxTotal: 6 }],
  recall: [{ use: "recall", k: 3 }],
  seed: [
    { use: "tool-result-compaction", maxChars: 500 },
    { use: "selective-tool-call", keepRecentGroups: 5 },
    { use: "sliding-window", maxMessages: 40 },
  ],
  "token-budget over children": [
    {
      use: "token-budget",
      triggerRatio: 0.8,
      strategies: [
        { use: "tool-result-compaction", maxChars: 400 },
        { use: "selective-tool-call", keepRecentGroups: 3 },
        { use: "sliding-window", maxMessages: 12 },
        { use: "truncation", maxMessages: 4 },
      ],
    },
  ],
  "summarizing pipeline": [{ use: "tool-result-compaction", maxChars: 300 }, { use: "summarization", recentTokenBudget: 400, minOldTokens: 50, summaryMaxTokens: 100 }],
};

// --- Histories as the APIs issue them ------------------------------------------------------------
interface Step {
  thinking: number; // thinking blocks / reasoning items before the calls (0 when thinking is off)
  redacted: boolean;
  text: boolean;
  calls: number;
  resultWords: number;
}
interface Turn {
  words: number;
  steps: Step[];
  answer: boolean; // the tool turn completed with a final answer
}
const step = fc.record({ thinking: fc.integer({ min: 1, max: 2 }), redacted: fc.boolean(), text: fc.boolean(), calls: fc.integer({ min: 1, max: 2 }), resultWords: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 200, max: 1_500 })) });
const turn = fc.record({ words: fc.integer({ min: 1, max: 60 }), steps: fc.array(step, { maxLength: 3 }), answer: fc.boolean() });
const scenario = fc.record({
  flavour: fc.constantFrom("anthropic" as const, "responses" as const),
  thinkingOn: fc.boolean(),
  // Anthropic-issued calls answered by tool_result blocks (as the Messages API has them) or by tool messages (as LangChain stores them).
  resultBlocks: fc.boolean(),
  turns: fc.array(turn, { minLength: 1, maxLength: 6 }),
  pipeline: fc.constantFrom(...Object.keys(PIPELINES)),
  budgets: fc.tuple(fc.integer({ min: 150, max: 1_500 }), fc.integer({ min: 1_500, max: 8_000 })),
  seed: fc.integer({ min: 0, max: 1e6 }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const words = (n: number, salt: number) => Array.from({ length: n }, (_, i) => `w${(salt * 31 + i * 7) % 997}`).join(" ");
/** A signature-like opaque string (base64 alphabet, + / = included: they must survive byte for byte). */
const opaque = (salt: number) => `Eq${Buffer.from(`sig-${salt}-${"x".repeat(salt % 40)}`).toString("base64")}+/=`;

interface Built {
  stored: Message[];
  issuedAnthropic: IssuedAnthropicMessage[];
  issuedResponses: Json[][];
}

function build(s: Scenario): Built {
  const stored: Message[] = [{ role: "system", content: "You are a careful agent." }];
  const issuedAnthropic: IssuedAnthropicMessage[] = [];
  const issuedResponses: Json[][] = [];
  let n = s.seed;
  s.turns.forEach((t, ti) => {
    stored.push({ role: "user", content: `task ${ti}: ${words(t.words, n++)}` });
    const steps = t.steps;
    const answered = ti < s.turns.length - 1 || t.answer || steps.length === 0;
    const issue = (calls: number, step: Step | undefined) => {
      const thinking = s.thinkingOn && step ? step.thinking : s.thinkingOn ? 1 : 0;
      const callIds = Array.from({ length: calls }, () => `c${n++}`);
      if (s.flavour === "anthropic") {
        const content: Json[] = [];
        for (let k = 0; k < thinking; k++) content.push({ type: "thinking", thinking: `Think ${words(5 + (n % 20), n)}.`, signature: opaque(n++) });
        if (s.thinkingOn && step?.redacted) content.push({ type: "redacted_thinking", data: opaque(n++) });
        if (step?.text || calls === 0) content.push({ type: "text", text: `Answer ${words(3, n++)}` });
        for (const id of callIds) content.push({ type: "tool_use", id: `toolu_${id}`, name: "grep", input: { pattern: words(2, n++) } });
        issuedAnthropic.push({ content });
        stored.push(...fromAnthropic({ type: "message", role: "assistant", content } as never));
      } else {
        const output: Json[] = [];
        for (let k = 0; k < thinking; k++) {
          output.push({ type: "reasoning", id: `rs_${n++}`, summary: n % 3 === 0 ? [] : [{ type: "summary_text", text: `Plan ${words(4, n)}` }], encrypted_content: `gAAAA${opaque(n++)}` });
          // The API gives each reasoning item the output it led to: a message, or the calls.
          if (k < thinking - 1) output.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: `Step ${words(2, n++)}` }] });
        }
        if (step?.text || calls === 0) output.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: `Answer ${words(3, n++)}` }] });
        for (const id of callIds) output.push({ type: "function_call", call_id: `call_${id}`, name: "grep", arguments: JSON.stringify({ pattern: words(2, n++) }) });
        issuedResponses.push(output);
        stored.push(...fromOpenAIResponses({ output } as never));
      }
      return callIds;
    };
    steps.forEach((st) => {
      const ids = issue(st.calls, st);
      if (s.flavour === "anthropic" && s.resultBlocks) stored.push({ role: "user", content: ids.map((id) => ({ type: "tool_result" as const, tool_use_id: `toolu_${id}`, content: `result ${words(st.resultWords, n++)}` })) });
      else for (const id of ids) stored.push({ role: "tool", tool_call_id: s.flavour === "anthropic" ? `toolu_${id}` : `call_${id}`, content: `result ${words(st.resultWords, n++)}` });
    });
    if (answered) issue(0, undefined);
  });
  return { stored, issuedAnthropic, issuedResponses };
}

/** The latest assistant message with tool calls when only its results (or notes) follow it: the turn in progress. */
function turnInProgress(stored: readonly Message[]): Message | undefined {
  for (let i = stored.length - 1; i >= 0; i--) {
    const m = stored[i]!;
    if (m.role === "tool" || (m.role === "user" && Array.isArray(m.content) && m.content.every((b) => b.type === "tool_result"))) continue;
    const calls = (m.tool_calls?.length ?? 0) > 0 || (Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use"));
    return m.role === "assistant" && calls ? m : undefined;
  }
  return undefined;
}

function check(s: Scenario, built: Built, window: Message[]): string[] {
  const problems: string[] = [];
  const tag = (adapter: string, list: string[]) => list.map((p) => `${adapter}: ${p}`);
  const anthropicChecks = (body: Json, adapter: string) => {
    const withThinking = s.flavour === "anthropic" && s.thinkingOn ? { ...body, thinking: { type: "enabled", budget_tokens: 1024 } } : body;
    problems.push(...tag(adapter, anthropicProblems(withThinking)));
    if (s.flavour === "anthropic") problems.push(...tag(adapter, anthropicThinkingProblems(body, built.issuedAnthropic)));
  };
  const responsesChecks = (body: Json, adapter: string) => {
    problems.push(...tag(adapter, openAIResponsesProblems(body)));
    if (s.flavour === "responses") problems.push(...tag(adapter, openAIReasoningProblems(body, built.issuedResponses)));
  };
  anthropicChecks(toAnthropic(window) as unknown as Json, "anthropic");
  responsesChecks(toOpenAIResponses(window) as unknown as Json, "openai-responses");
  problems.push(...tag("openai-chat", openAIChatProblems(toOpenAIChat(window) as unknown as Json)));
  const aiSdk = toAISDK(window);
  problems.push(...tag("ai-sdk", aiSdkPairingProblems(aiSdk)));
  const viaAiSdk = fromAISDK(aiSdk);
  // LangChain carries results as ToolMessages only (a tool_result block is a typed error there): histories stored its way.
  const langChainStored = !window.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"));
  const viaLangChain = langChainStored ? fromLangChain(toLangChain(window)) : undefined;
  if (s.flavour === "anthropic") {
    anthropicChecks(toAnthropic(viaAiSdk) as unknown as Json, "ai-sdk → anthropic");
    if (viaLangChain) anthropicChecks(toAnthropic(viaLangChain) as unknown as Json, "langchain → anthropic");
  } else {
    problems.push(...tag("ai-sdk → openai-chat", openAIChatProblems(toOpenAIChat(viaAiSdk) as unknown as Json)));
    if (viaLangChain) problems.push(...tag("langchain → openai-chat", openAIChatProblems(toOpenAIChat(viaLangChain) as unknown as Json)));
  }
  return problems;
}

describe("thinking and reasoning survive every pipeline, the window and every adapter", () => {
  it(`every request passes the providers' documented rules; the turn in progress is always sent (${numRuns} histories)`, async () => {
    const counts = { windows: 0, tooSmall: 0, inProgress: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const built = build(s);
        const context = new HistoryContextManager({ moduleName: "context-simple", options: { strategies: PIPELINES[s.pipeline] as never } });
        await context.setMessages(built.stored);
        const before = structuredClone(await context.getMessages());
        const pending = turnInProgress(before);
        for (const budget of [...s.budgets, 1e6]) {
          let window: Message[];
          try {
            window = await context.getMessagesForRequest(budget);
          } catch (error) {
            if ((error as { code?: string }).code !== "BUDGET_TOO_SMALL") throw error;
            counts.tooSmall++;
            continue;
          }
          counts.windows++;
          if (pending) {
            const sent = window.find((m) => m.metadata?.id === pending.metadata?.id);
            expect(sent, `the turn in progress at budget ${budget} (${s.pipeline})`).toBeDefined();
            expect(JSON.stringify(sent!.content)).toBe(JSON.stringify(pending.content));
            counts.inProgress++;
          }
          const problems = check(s, built, window);
          expect(problems, `${s.pipeline} at budget ${budget}`).toEqual([]);
        }
        expect(await context.getMessages()).toEqual(before);
      }),
      { numRuns },
    );
    expect(counts.windows).toBeGreaterThan(numRuns);
    expect(counts.inProgress).toBeGreaterThan(0);
  }, Math.max(60_000, numRuns * 400));
});
