/**
 * A window fitter over LangChain messages, kept across calls: the messages in, the window out, as
 * LangChain messages again — a message the window keeps as it is comes back as the SAME object;
 * a truncated or made-up one (an interrupted tool call's result, the omitted-history note) is a
 * new message of the same class.
 *
 * Each BaseMessage is converted once (WeakMap) to the stored-message shape, the way
 * @langchain/openai's Chat Completions converter sends it (role, text or parts, `name`, tool calls
 * with JSON arguments, `tool_call_id`), so the counts are those of the request the provider gets.
 * While the history only grows (an agent loop), a call indexes only the new messages and the cut
 * keeps its hysteresis (cache-stable prefix); a history that changed elsewhere is re-indexed.
 */
import type { ContentBlock, Message, ToolDefinition } from "@amplifier-ts/contracts";
import { getModelInfo, getTokenCounter, type TokenCounter } from "@amplifier-ts/tokens";
import { resolveBudget, WindowAssembler, windowMarkOf, type WindowReport } from "@amplifier-ts/window";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { langchainErrors } from "./langchain-errors.js";

export interface LangChainFitOptions {
  /** A model the token registry knows: the counter, and the budget when none is given. */
  model?: string | undefined;
  /** Tokens the whole request may use (messages + tools + reply priming). */
  budget?: number | undefined;
  /** With `model`: the output reserved below the window (default: the registry's). */
  maxOutputTokens?: number | undefined;
  /** With `model`: tokens kept free below window − output (default 1,000). */
  safetyMargin?: number | undefined;
  /** Tool definitions sent with every request (OpenAI function shape); counted. */
  tools?: readonly ToolDefinition[] | undefined;
}

export interface FittedWindow {
  messages: BaseMessage[];
  report: WindowReport;
}

export interface LangChainFitter {
  readonly budget: number;
  readonly counter: TokenCounter;
  fit(messages: readonly BaseMessage[]): BaseMessage[];
  fitWithReport(messages: readonly BaseMessage[]): FittedWindow;
}

export function createLangChainFitter(options: LangChainFitOptions): LangChainFitter {
  const budget = budgetOf(options);
  const counter = getTokenCounter(options.model ?? "gpt-4o");
  const tools = options.tools;
  const assembler = new WindowAssembler();
  const converted = new WeakMap<BaseMessage, Message>();
  const originals = new Map<string, BaseMessage>();
  let stored: BaseMessage[] = [];

  const asStored = (message: BaseMessage, index: number): Message => {
    let m = converted.get(message);
    if (!m) {
      m = toStored(message, index, `lc-${nextId++}`);
      converted.set(message, m);
      originals.set(m.metadata!.id!, message);
    }
    return m;
  };

  function fitWithReport(messages: readonly BaseMessage[]): FittedWindow {
    if (!Array.isArray(messages)) throw langchainErrors.create("UNKNOWN_MESSAGE", "fit() takes an array of LangChain messages", { path: "messages", expected: "BaseMessage[]", given: typeof messages });
    let shared = 0;
    while (shared < stored.length && shared < messages.length && stored[shared] === messages[shared]) shared++;
    if (shared < stored.length) {
      assembler.reset(messages.map(asStored));
      originals.clear();
      for (const m of messages) originals.set(converted.get(m)!.metadata!.id!, m);
    } else {
      for (let i = shared; i < messages.length; i++) assembler.append(asStored(messages[i]!, i));
    }
    stored = messages.slice();
    const { messages: window, report } = assembler.assemble({ budget, counter, tools });
    return { messages: window.map(fromStored(originals)), report };
  }

  return { budget, counter, fit: (messages) => fitWithReport(messages).messages, fitWithReport };
}

let nextId = 0;

/** The budget; and the model must be one the registry knows: its counts are exact, a guess is not. */
function budgetOf(options: LangChainFitOptions): number {
  const info = options.model === undefined ? undefined : getModelInfo(options.model);
  if (options.model !== undefined && !info) {
    throw langchainErrors.create("NO_MODEL", `the token registry does not know "${options.model}": its counts would be a guess`, { module: "langchain", path: "model", expected: "a model name the token registry knows (registerModel() from @amplifier-ts/tokens adds one)", given: options.model });
  }
  if (options.budget !== undefined) return resolveBudget({ tokenBudget: options.budget });
  if (!info) throw langchainErrors.create("NO_MODEL", undefined, { module: "langchain", path: "model", expected: "a model name the token registry knows, or a budget", given: undefined });
  return resolveBudget({
    model: options.model,
    modelInfo: { contextWindow: info.contextWindow, maxOutputTokens: options.maxOutputTokens ?? info.maxOutputTokens },
    ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
  });
}

/** A LangChain message as the Chat Completions converter of @langchain/openai sends it. */
function toStored(message: BaseMessage, index: number, id: string): Message {
  const name = message.name == null ? {} : { name: message.name };
  const metadata = { id };
  if (SystemMessage.isInstance(message)) return { role: "system", content: text(message), ...name, metadata };
  if (HumanMessage.isInstance(message)) return { role: "user", content: parts(message, index), ...name, metadata };
  if (ToolMessage.isInstance(message)) return { role: "tool", content: text(message), tool_call_id: message.tool_call_id, ...name, metadata };
  if (AIMessage.isInstance(message)) {
    const calls = (message.tool_calls ?? []).map((c) => ({ id: c.id ?? "", type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    return { role: "assistant", content: text(message), ...(calls.length ? { tool_calls: calls } : {}), ...name, metadata };
  }
  throw langchainErrors.create("UNKNOWN_MESSAGE", `message ${index} is a ${describe(message)}`, { path: `messages[${index}]`, expected: "a SystemMessage, HumanMessage, AIMessage or ToolMessage", given: describe(message) });
}

function fromStored(originals: ReadonlyMap<string, BaseMessage>) {
  return (m: Message): BaseMessage => {
    const original = originals.get(m.metadata?.id ?? "");
    if (original && windowMarkOf(m) === undefined) return original;
    const content = typeof m.content === "string" ? m.content : (m.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
    const id = original?.id === undefined ? {} : { id: original.id };
    switch (m.role) {
      case "tool":
        return new ToolMessage({ content, tool_call_id: m.tool_call_id ?? "", ...(m.name ? { name: m.name } : {}), ...id });
      case "user":
        return new HumanMessage({ content, ...id });
      case "assistant":
        return new AIMessage({ content, ...id, ...(original && AIMessage.isInstance(original) ? { tool_calls: original.tool_calls ?? [] } : {}) });
      default:
        return new SystemMessage({ content, ...id });
    }
  };
}

function text(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : message.text;
}

function parts(message: BaseMessage, index: number): Message["content"] {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((block, k): ContentBlock[] => {
    if (block.type === "text" && typeof block.text === "string") return [{ type: "text" as const, text: block.text }];
    if (block.type === "image_url") {
      const url = typeof block.image_url === "string" ? block.image_url : (block.image_url as { url: string }).url;
      return [{ type: "image_url" as const, image_url: { url } }];
    }
    throw langchainErrors.create("UNKNOWN_MESSAGE", `message ${index} has a content block of type "${String(block.type)}"`, { path: `messages[${index}].content[${k}]`, expected: "text or image_url blocks", given: block.type });
  });
}

function describe(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value;
  const type = (value as { type?: unknown }).type;
  return typeof type === "string" ? `message of type "${type}"` : (value.constructor?.name ?? "object");
}
