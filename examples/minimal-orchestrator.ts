/**
 * A minimal orchestrator: the agent loop of amplifier-ts in one file.
 *
 *   prompt:submit hooks → inject context → model call → tool calls (tool:pre / tool:post) → model
 *   call … until the model answers without tool calls → prompt:complete.
 *
 * startTurn and runTool (from amplifier-ts) emit the standard events and apply what hooks ask, so
 * hooks written for amplifier-core — and the memory recorder — see the loop.
 *
 * The model is a ScriptedProvider (replayed answers), the tool a calculator, the context module
 * whatever the config names (context-simple by default). Run it:
 *
 *   npm run example            (= npm run build && node dist/examples/minimal-orchestrator.js)
 *
 * Built-in modules load from the package's own modules/ folder, so the example runs from the
 * built package (a bundle elsewhere would not find them); add `--context <module>` to run it on
 * another context module, e.g. `--context amplifier-module-context-example`. Or import
 * runMinimalOrchestrator() — the tests do.
 */
import { pathToFileURL } from "node:url";
import type { Message, ToolCallPart } from "amplifier-ts";
import type { ChatRequest } from "amplifier-ts";
import type { Tool } from "amplifier-ts";
import { callArguments, createSession, forEachContentPart, runTool, startTurn, type Session } from "amplifier-ts";
import { ScriptedProvider, type ScriptedReply } from "./scripted-provider.js";

export interface MinimalOrchestratorOptions {
  /** What the user asks. */
  prompt?: string;
  /** The model's answers, in order (default: one calculator call, then an answer quoting its result). */
  script?: ScriptedReply[];
  /** Context module reference, as in amplifier.config.json (default "context-simple"). */
  contextModule?: string;
  contextConfig?: Record<string, unknown>;
  /** Stop after this many model calls even if the model keeps calling tools (default 8). */
  maxModelCalls?: number;
  /** Sees every transcript entry as it happens. */
  onEntry?: (entry: TranscriptEntry) => void;
  /**
   * Agent memory: with it the session mounts this memory module and the memory-recorder hook —
   * the one line of config that fills memory with the loop's events (examples/memory-recorder.ts).
   */
  memory?: { module: string; config?: Record<string, unknown> };
  /** Called once the session is mounted, before the prompt: register more hooks, capabilities… */
  setup?: (session: Session) => void | Promise<void>;
}

export interface TranscriptEntry {
  kind: "user" | "context" | "assistant" | "tool_call" | "tool_result";
  text: string;
}

export interface MinimalOrchestratorResult {
  transcript: TranscriptEntry[];
  /** Model calls made. */
  turns: number;
  /** The final assistant answer. */
  answer: string;
  /** The stored history at the end (ephemeral injections are not in it). */
  history: Message[];
  /** Every request the provider was sent. */
  requests: ChatRequest[];
}

export const DEFAULT_PROMPT = "A room is 37 tiles long and 43 tiles wide. How many tiles is that?";

export const DEFAULT_SCRIPT: ScriptedReply[] = [
  {
    role: "assistant",
    content: "Let me multiply that.",
    tool_calls: [{ id: "call_1", type: "function", function: { name: "calculator", arguments: '{"operation":"multiply","a":37,"b":43}' } }],
  },
  (request) => ({ role: "assistant", content: `That is 37 × 43 = ${lastToolOutput(request.messages)} tiles.` }),
];

/** Injected (ephemeral) on every prompt: request-only context, never stored. */
export const STYLE_REMINDER = "Answer in one sentence and show the arithmetic.";

export async function runMinimalOrchestrator(options: MinimalOrchestratorOptions = {}): Promise<MinimalOrchestratorResult> {
  const prompt = options.prompt ?? DEFAULT_PROMPT;
  const maxModelCalls = options.maxModelCalls ?? 8;
  const transcript: TranscriptEntry[] = [];
  const record = (kind: TranscriptEntry["kind"], text: string) => {
    const entry = { kind, text };
    transcript.push(entry);
    options.onEntry?.(entry);
  };

  const session = await createSession({
    session: { context: { module: options.contextModule ?? "context-simple", config: options.contextConfig ?? {} } },
    ...(options.memory === undefined ? {} : { memory: options.memory, hooks: [{ module: "memory-recorder" }] }),
  });
  try {
    const { coordinator, hooks, context } = session;
    const provider = new ScriptedProvider(options.script ?? DEFAULT_SCRIPT);
    await coordinator.mount("providers", provider, "scripted");
    await coordinator.mount("tools", calculator, "calculator");
    const model = provider.getInfo().defaults?.model;

    // A hook: on every prompt, ask for request-only context. The orchestrator applies what hooks ask.
    hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: STYLE_REMINDER, ephemeral: true }), {
      name: "style-reminder",
    });
    hooks.on("context:include", (include) => record("context", include.content));
    await options.setup?.(session);
    await hooks.emit("session:start", { sessionId: coordinator.sessionId });

    // prompt:submit (a hook may deny: PROMPT_DENIED), the hooks' injections, the user message.
    const turn = await startTurn(coordinator, prompt);
    record("user", prompt);
    // Held for every model call of this prompt; gone after it (never stored).
    const { extraMessages } = turn;
    const tools = Object.values(coordinator.get("tools")).map((tool) => tool.definition);

    let turns = 0;
    let answer = "";
    while (turns < maxModelCalls) {
      turns++;
      const messages = await context.getMessagesForRequest(undefined, provider, { extraMessages });
      await hooks.emit("provider:request", { provider: "scripted", ...(model === undefined ? {} : { model }), messages, tools });
      const started = performance.now();
      const response = await provider.complete({ messages, tools, ...(model === undefined ? {} : { model }) });
      await hooks.emit("provider:response", { provider: "scripted", message: response.message, durationMs: performance.now() - started });
      await context.addMessage(response.message);

      const text = typeof response.message.content === "string" ? response.message.content : "";
      if (text) record("assistant", text);
      const calls: ToolCallPart[] = [];
      forEachContentPart(response.message, { toolCall: (call) => void calls.push(call) });
      if (calls.length === 0) {
        answer = text;
        break;
      }
      for (const call of calls) {
        record("tool_call", `${call.name}(${callArguments(call)})`);
        // tool:pre (hooks may deny or modify the input), execute, tool:post; failures become error results.
        const result = await runTool(coordinator, call);
        record("tool_result", result.output);
        await context.addMessage({ role: "tool", tool_call_id: call.id, name: call.name, content: result.output });
      }
    }
    if (answer === "") throw new Error(`the model was still calling tools after ${maxModelCalls} calls`);

    await turn.complete(answer);
    await hooks.emit("orchestrator:complete", { orchestrator: "minimal-orchestrator", turns, status: "completed", response: answer });
    return { transcript, turns, answer, history: await context.getMessages(), requests: provider.requests };
  } finally {
    await session.close();
  }
}

const OPERATIONS = {
  add: (a: number, b: number) => a + b,
  subtract: (a: number, b: number) => a - b,
  multiply: (a: number, b: number) => a * b,
  divide: (a: number, b: number) => a / b,
} as const;

/** The one tool: arithmetic on two numbers. Bad input throws; the loop turns that into an error result. */
export const calculator: Tool = {
  definition: {
    type: "function",
    function: {
      name: "calculator",
      description: "Add, subtract, multiply or divide two numbers",
      parameters: {
        type: "object",
        properties: {
          operation: { type: "string", enum: Object.keys(OPERATIONS) },
          a: { type: "number" },
          b: { type: "number" },
        },
        required: ["operation", "a", "b"],
      },
    },
  },
  execute(input) {
    const { operation, a, b } = input;
    if (typeof operation !== "string" || !Object.hasOwn(OPERATIONS, operation)) throw new Error(`unknown operation ${JSON.stringify(operation)}`);
    if (typeof a !== "number" || typeof b !== "number") throw new Error("a and b must be numbers");
    if (operation === "divide" && b === 0) throw new Error("division by zero");
    return { output: String(OPERATIONS[operation as keyof typeof OPERATIONS](a, b)) };
  },
};

export function formatTranscript(result: Pick<MinimalOrchestratorResult, "transcript" | "turns">): string {
  const labels: Record<TranscriptEntry["kind"], string> = {
    context: "[context]  ",
    user: "user       ",
    assistant: "assistant  ",
    tool_call: "  → tool   ",
    tool_result: "  ← result ",
  };
  return [...result.transcript.map((entry) => `${labels[entry.kind]}${entry.text}`), `(${result.turns} model calls)`].join("\n");
}

function lastToolOutput(messages: readonly Message[]): string {
  const tool = messages.findLast((m) => m.role === "tool");
  return typeof tool?.content === "string" ? tool.content : "?";
}

// Run directly: prints the transcript. `--context <module>` picks another context module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--context");
  const contextModule = at > 0 ? process.argv[at + 1] : undefined;
  const result = await runMinimalOrchestrator(contextModule === undefined ? {} : { contextModule });
  console.log(formatTranscript(result));
}
