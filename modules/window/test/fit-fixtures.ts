/**
 * Conversations for the fitWindow tests, written the way each framework writes them (no adapter
 * of ours produces them), and the independent checks of a window in each format: its request
 * tokens counted after converting it back with the adapters (not the fitter's reading), each
 * API's own request rules (test/adapters/api-rules.ts), the AI SDK's own message schema, and tool
 * pairs read in the native shape.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { modelMessageSchema, type ModelMessage } from "ai";
import fc from "fast-check";
import { fromAISDK, fromAnthropic, fromLangChain, fromOpenAIChat, fromOpenAIResponses, type LangChainMessageLike } from "@amplifier-ts/adapters";
import type { Message, ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { anthropicProblems, openAIChatProblems, openAIResponsesProblems } from "../../../test/adapters/api-rules.js";
import type { WindowFormat } from "../index.js";

export interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** undefined: the call was interrupted (no result recorded). */
  readonly result: string | undefined;
}
export interface Step {
  readonly text: string;
  readonly calls: readonly Call[];
}
export interface Turn {
  readonly prompt: string;
  readonly steps: readonly Step[];
  readonly answer: string;
}
export interface Conversation {
  readonly system: string;
  readonly turns: readonly Turn[];
}

export const TOOLS: ToolDefinition[] = [
  { type: "function", function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
  { type: "function", function: { name: "search", description: "Search the web", parameters: { type: "object", properties: { q: { type: "string" } } } } },
];

export const FORMATS: readonly WindowFormat[] = ["amplifier", "openai-chat", "openai-responses", "anthropic", "ai-sdk", "langchain"];

const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"];

/** Deterministic text of about `n` words. */
export function text(seed: number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(words[(seed * 7 + i * 13) % words.length]!);
  return out.join(" ");
}

/** A conversation of `turns` turns; every turn one tool step, results of `resultWords` words. */
export function conversation(turns: number, resultWords = 60, seed = 0): Conversation {
  const list: Turn[] = [];
  for (let t = 0; t < turns; t++) {
    const n = seed + t;
    list.push({
      prompt: `question ${n}: ${text(n, 8)}`,
      steps: [{ text: t % 3 === 0 ? `looking ${n}` : "", calls: [{ id: `call_${n}_0`, name: t % 2 ? "search" : "read_file", args: t % 2 ? { q: text(n, 2) } : { path: `/f/${n}` }, result: text(n + 1, resultWords) }] }],
      answer: `answer ${n}: ${text(n + 2, 12)}`,
    });
  }
  return { system: "You are a careful assistant.", turns: list };
}

export function conversationArbitrary(maxTurns = 14): fc.Arbitrary<Conversation> {
  const call = fc.record({
    name: fc.constantFrom("read_file", "search"),
    words: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 80 }) }, { weight: 1, arbitrary: fc.integer({ min: 300, max: 2_000 }) }),
    // A crash mid-tool: the call has no result recorded (the window answers it).
    missing: fc.integer({ min: 0, max: 99 }).map((n) => n < 6),
  });
  const step = fc.record({ words: fc.integer({ min: 0, max: 12 }), calls: fc.array(call, { minLength: 1, maxLength: 3 }) });
  const turn = fc.record({ words: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 200, max: 900 })), steps: fc.array(step, { maxLength: 3 }), answer: fc.integer({ min: 0, max: 40 }) });
  return fc.tuple(fc.array(turn, { minLength: 1, maxLength: maxTurns }), fc.boolean()).map(([turns, interruptedEnd]) => {
    let id = 0;
    const list: Turn[] = turns.map((t, ti) => ({
      prompt: `q${ti} ${text(ti, t.words)}`.trim(),
      steps: t.steps.map((s, si) => ({
        text: s.words ? text(ti + si, s.words) : "",
        calls: s.calls.map((c) => ({ id: `call_${id++}`, name: c.name, args: c.name === "search" ? { q: text(id, 2) } : { path: `/f/${id}` }, result: c.missing ? undefined : text(id, c.words) })),
      })),
      answer: `a${ti} ${text(ti + 3, t.answer)}`.trim(),
    }));
    if (interruptedEnd) {
      // The last turn ends in a call that has no result (a crash mid-tool): the window must add one.
      const last = list[list.length - 1]!;
      list[list.length - 1] = { ...last, steps: [...last.steps, { text: "", calls: [{ id: `call_${id++}`, name: "search", args: { q: "x" }, result: undefined }] }], answer: "" };
    }
    return { system: "You are a careful assistant.", turns: list };
  });
}

/** The conversation as the framework of `format` writes it (Anthropic and Responses: their envelopes). */
export function render(format: WindowFormat, c: Conversation): unknown {
  switch (format) {
    case "amplifier":
      return renderAmplifier(c);
    case "openai-chat":
      return renderChat(c);
    case "openai-responses":
      return { instructions: c.system, input: renderResponses(c) };
    case "anthropic":
      return { system: c.system, messages: renderAnthropic(c) };
    case "ai-sdk":
      return renderAISDK(c);
    case "langchain":
      return renderLangChain(c);
  }
}

/** The item array of a rendered conversation (or window). */
export function itemsOf(format: WindowFormat, rendered: unknown): unknown[] {
  if (format === "anthropic") return (rendered as { messages: unknown[] }).messages;
  if (format === "openai-responses") return (rendered as { input: unknown[] }).input;
  return rendered as unknown[];
}

function renderAmplifier(c: Conversation): Message[] {
  let n = 0;
  const meta = () => ({ id: `m${n++}` });
  const out: Message[] = [{ role: "system", content: c.system, metadata: meta() }];
  for (const t of c.turns) {
    out.push({ role: "user", content: t.prompt, metadata: meta() });
    for (const s of t.steps) {
      out.push({ role: "assistant", content: s.text || null, tool_calls: s.calls.map((k) => ({ id: k.id, type: "function" as const, function: { name: k.name, arguments: JSON.stringify(k.args) } })), metadata: meta() });
      for (const k of s.calls) if (k.result !== undefined) out.push({ role: "tool", tool_call_id: k.id, name: k.name, content: k.result, metadata: meta() });
    }
    if (t.answer) out.push({ role: "assistant", content: t.answer, metadata: meta() });
  }
  return out;
}

function renderChat(c: Conversation): unknown[] {
  const out: unknown[] = [{ role: "system", content: c.system }];
  for (const t of c.turns) {
    out.push({ role: "user", content: t.prompt });
    for (const s of t.steps) {
      out.push({ role: "assistant", content: s.text || null, tool_calls: s.calls.map((k) => ({ id: k.id, type: "function", function: { name: k.name, arguments: JSON.stringify(k.args) } })) });
      for (const k of s.calls) if (k.result !== undefined) out.push({ role: "tool", tool_call_id: k.id, content: k.result });
    }
    if (t.answer) out.push({ role: "assistant", content: t.answer });
  }
  return out;
}

function renderResponses(c: Conversation): unknown[] {
  const out: unknown[] = [];
  let n = 0;
  for (const t of c.turns) {
    out.push({ type: "message", role: "user", content: t.prompt });
    for (const s of t.steps) {
      if (s.text) out.push({ type: "message", role: "assistant", id: `msg_${n++}`, status: "completed", content: [{ type: "output_text", text: s.text, annotations: [] }] });
      for (const k of s.calls) out.push({ type: "function_call", id: `fc_${n++}`, call_id: k.id, name: k.name, arguments: JSON.stringify(k.args), status: "completed" });
      for (const k of s.calls) if (k.result !== undefined) out.push({ type: "function_call_output", call_id: k.id, output: k.result });
    }
    if (t.answer) out.push({ type: "message", role: "assistant", id: `msg_${n++}`, status: "completed", content: [{ type: "output_text", text: t.answer, annotations: [] }] });
  }
  return out;
}

function renderAnthropic(c: Conversation): unknown[] {
  const out: unknown[] = [];
  for (const t of c.turns) {
    out.push({ role: "user", content: t.prompt });
    for (const s of t.steps) {
      out.push({ role: "assistant", content: [...(s.text ? [{ type: "text", text: s.text }] : []), ...s.calls.map((k) => ({ type: "tool_use", id: k.id, name: k.name, input: k.args }))] });
      const results = s.calls.filter((k) => k.result !== undefined).map((k) => ({ type: "tool_result", tool_use_id: k.id, content: k.result }));
      if (results.length > 0) out.push({ role: "user", content: results });
    }
    if (t.answer) out.push({ role: "assistant", content: [{ type: "text", text: t.answer }] });
  }
  return out;
}

function renderAISDK(c: Conversation): ModelMessage[] {
  const out: ModelMessage[] = [{ role: "system", content: c.system }];
  for (const t of c.turns) {
    out.push({ role: "user", content: [{ type: "text", text: t.prompt }] });
    for (const s of t.steps) {
      out.push({
        role: "assistant",
        content: [...(s.text ? [{ type: "text" as const, text: s.text }] : []), ...s.calls.map((k) => ({ type: "tool-call" as const, toolCallId: k.id, toolName: k.name, input: k.args, providerOptions: { test: { keep: k.id } } }))],
      });
      const results = s.calls.filter((k) => k.result !== undefined);
      if (results.length > 0) out.push({ role: "tool", content: results.map((k) => ({ type: "tool-result" as const, toolCallId: k.id, toolName: k.name, output: { type: "text" as const, value: k.result! } })) });
    }
    if (t.answer) out.push({ role: "assistant", content: [{ type: "text", text: t.answer }] });
  }
  return out;
}

function renderLangChain(c: Conversation): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage(c.system)];
  let n = 0;
  for (const t of c.turns) {
    out.push(new HumanMessage({ content: t.prompt, id: `h${n++}` }));
    for (const s of t.steps) {
      out.push(new AIMessage({ content: s.text, id: `ai${n++}`, tool_calls: s.calls.map((k) => ({ id: k.id, name: k.name, args: k.args, type: "tool_call" as const })) }));
      for (const k of s.calls) if (k.result !== undefined) out.push(new ToolMessage({ content: k.result, tool_call_id: k.id, name: k.name, id: `t${n++}` }));
    }
    if (t.answer) out.push(new AIMessage({ content: t.answer, id: `ai${n++}` }));
  }
  return out;
}

/** A window (in `format`, envelope included) read back by the adapters: what the independent count counts. */
export function readBack(format: WindowFormat, window: unknown): Message[] {
  switch (format) {
    case "amplifier":
      return window as Message[];
    case "openai-chat":
      return fromOpenAIChat(window as never);
    case "openai-responses":
      return fromOpenAIResponses(window as never);
    case "anthropic":
      return fromAnthropic(window as never);
    case "ai-sdk":
      return fromAISDK(window as never);
    case "langchain":
      return fromLangChain(window as LangChainMessageLike[]);
  }
}

/** Request tokens of a window, counted independently: read back by the adapters, counted whole by the model's counter. */
export function requestTokens(format: WindowFormat, window: unknown, model = "gpt-4o", tools: readonly ToolDefinition[] = []): number {
  return getTokenCounter(model).countRequest(readBack(format, window), tools);
}

/** Problems of a window in its own format: the API's request rules, the SDK's schema, tool pairs read natively. */
export function nativeProblems(format: WindowFormat, window: unknown): string[] {
  switch (format) {
    case "openai-chat":
      return openAIChatProblems({ model: "gpt-4o", messages: window });
    case "openai-responses": {
      const w = window as { instructions?: string; input: unknown[] };
      return openAIResponsesProblems({ model: "gpt-4o", ...(w.instructions ? { instructions: w.instructions } : {}), input: w.input });
    }
    case "anthropic": {
      const w = window as { system?: string; messages: unknown[] };
      return anthropicProblems({ model: "claude-sonnet-4-5", max_tokens: 1024, ...(w.system ? { system: w.system } : {}), messages: w.messages });
    }
    case "ai-sdk":
      return aiSdkProblems(window as ModelMessage[]);
    case "langchain":
      return langChainProblems(window as BaseMessage[]);
    case "amplifier":
      // Ours is OpenAI Chat plus metadata (never sent) and the tool's name on a tool message.
      return openAIChatProblems({ model: "gpt-4o", messages: (window as Message[]).map(({ metadata: _m, ...rest }) => (rest.role === "tool" ? withoutName(rest) : rest)) });
  }
}

function aiSdkProblems(window: readonly ModelMessage[]): string[] {
  const problems: string[] = [];
  let pending = new Set<string>();
  window.forEach((m, i) => {
    const parsed = modelMessageSchema.safeParse(m);
    if (!parsed.success) problems.push(`messages[${i}]: not a ModelMessage (${parsed.error.message.slice(0, 200)})`);
    if (m.role === "tool") {
      for (const part of m.content) {
        if (part.type !== "tool-result") continue;
        if (!pending.delete(part.toolCallId)) problems.push(`messages[${i}]: result ${part.toolCallId} answers no open call`);
      }
      return;
    }
    if (pending.size > 0) problems.push(`messages[${i}]: calls ${[...pending].join(", ")} have no result before it`);
    pending = new Set();
    if (m.role === "assistant" && Array.isArray(m.content)) for (const part of m.content) if (part.type === "tool-call") pending.add(part.toolCallId);
  });
  if (pending.size > 0) problems.push(`end: calls ${[...pending].join(", ")} have no result`);
  return problems;
}

function langChainProblems(window: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  let pending = new Set<string>();
  window.forEach((m, i) => {
    const type = (m as { type?: string }).type ?? (m as { role?: string }).role;
    if (type === "tool") {
      const id = (m as ToolMessage).tool_call_id;
      if (!pending.delete(id)) problems.push(`messages[${i}]: ToolMessage ${id} answers no open call`);
      return;
    }
    if (pending.size > 0) problems.push(`messages[${i}]: calls ${[...pending].join(", ")} have no ToolMessage before it`);
    pending = new Set();
    for (const call of (m as AIMessage).tool_calls ?? []) pending.add(call.id!);
  });
  if (pending.size > 0) problems.push(`end: calls ${[...pending].join(", ")} have no ToolMessage`);
  return problems;
}

function withoutName<T extends { name?: string }>(message: T): Omit<T, "name"> {
  const { name: _name, ...rest } = message;
  return rest;
}

/**
 * The points of a conversation where an agent loop calls the model: after each prompt, and after
 * each step's results (the item counts of the rendered array at those points).
 */
export function requestPoints(format: WindowFormat, c: Conversation): number[] {
  const points: number[] = [];
  let n = 0;
  for (let t = 0; t < c.turns.length; t++) {
    const turn = c.turns[t]!;
    const upTo = { ...c, turns: [...c.turns.slice(0, t), { ...turn, steps: [], answer: "" }] };
    n = itemsOf(format, render(format, upTo)).length;
    points.push(n);
    for (let s = 0; s < turn.steps.length; s++) {
      const partial = { ...c, turns: [...c.turns.slice(0, t), { ...turn, steps: turn.steps.slice(0, s + 1), answer: "" }] };
      points.push(itemsOf(format, render(format, partial)).length);
    }
  }
  return points;
}

/** Share of `previous` that `next` starts with (by identity): the prefix a provider's cache can reuse. */
export function prefixShare(previous: readonly unknown[], next: readonly unknown[]): number {
  let i = 0;
  while (i < previous.length && i < next.length && previous[i] === next[i]) i++;
  return previous.length === 0 ? 1 : i / previous.length;
}
