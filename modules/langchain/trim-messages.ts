/**
 * `trimMessages` with LangChain's call shapes — `trimMessages(messages, options)` → Promise of the
 * window, `trimMessages(options)` → a Runnable for a chain — whose windows never split a tool call
 * from its results and are counted exactly for the model (the request the provider gets).
 *
 * | option          | here        | how                                                                                   |
 * |-----------------|-------------|---------------------------------------------------------------------------------------|
 * | `maxTokens`     | honoured    | the budget of the whole request: messages + reply priming (+ `tools`, if given)       |
 * | `tokenCounter`  | mapped      | a chat model (`new ChatOpenAI({ model })`) → our exact counter for its model name; a function is refused (UNSUPPORTED_OPTION): it cannot count the provider's request exactly — pass the model, or `model: "<name>"` |
 * | `strategy`      | honoured    | `"last"` (the default); `"first"` refused (UNSUPPORTED_OPTION): an agent's window keeps the newest turns |
 * | `startOn`       | honoured    | when it includes `"human"`: the window starts on a user message (after the system message); any other type refused |
 * | `endOn`         | honoured    | trailing messages of other types are left out before the window is fitted, as LangChain does |
 * | `includeSystem` | mapped      | both values: system messages are always kept, first (a window without its instructions is no window) |
 * | `allowPartial`  | mapped      | both values: a message is cut only when the last turn alone does not fit — a tool result or the last prompt, head + tail kept with a marker |
 * | `textSplitter`  | refused with `allowPartial: true` (UNSUPPORTED_OPTION); ignored otherwise, as LangChain does |
 *
 * Extensions: `model` (a model name, instead of a chat model as `tokenCounter`), `tools` (the
 * LangChain tools bound to the model, counted against `maxTokens`).
 */
import { createError } from "@amplifier-ts/contracts";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { createWindowFitter, type WindowFitter } from "@amplifier-ts/window";
import { fitterOptions } from "./fitter-options.js";
import { langchainErrors } from "./langchain-errors.js";
import { toolDefinitionsOf } from "./tool-definitions.js";

type MessageClass = { isInstance(value: unknown): boolean };
export type MessageTypeOrClass = string | MessageClass;

export interface TrimMessagesOptions {
  /** Tokens the request may use: messages + reply priming (+ the tools, when given). */
  maxTokens: number;
  /** A chat model whose `model` names the counter; a counting function is refused. Or give `model`. */
  tokenCounter?: unknown;
  /** A model the token registry knows (instead of a chat model as `tokenCounter`). */
  model?: string;
  /** The tools bound to the model (LangChain tools or OpenAI tool dicts); counted. */
  tools?: readonly unknown[];
  strategy?: "first" | "last";
  allowPartial?: boolean;
  endOn?: MessageTypeOrClass | readonly MessageTypeOrClass[];
  startOn?: MessageTypeOrClass | readonly MessageTypeOrClass[];
  includeSystem?: boolean;
  textSplitter?: unknown;
}

export function trimMessages(options: TrimMessagesOptions): Runnable<BaseMessage[], BaseMessage[]>;
export function trimMessages(messages: readonly BaseMessage[], options: TrimMessagesOptions): Promise<BaseMessage[]>;
export function trimMessages(first: readonly BaseMessage[] | TrimMessagesOptions, second?: TrimMessagesOptions): Runnable<BaseMessage[], BaseMessage[]> | Promise<BaseMessage[]> {
  if (Array.isArray(first)) {
    const messages = first as readonly BaseMessage[];
    try {
      const plan = planOf(second);
      return Promise.resolve(plan.fitter().fit(plan.endOn(messages) as BaseMessage[]));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const plan = planOf(first as TrimMessagesOptions);
  // One fitter for the chain's life: while the history only grows, a call costs O(new messages).
  const fitter = plan.fitter();
  return RunnableLambda.from((messages: BaseMessage[]) => fitter.fit(plan.endOn(messages) as BaseMessage[])).withConfig({ runName: "trimMessages" });
}

interface Plan {
  fitter(): WindowFitter;
  endOn(messages: readonly BaseMessage[]): readonly BaseMessage[];
}

function planOf(options: TrimMessagesOptions | undefined): Plan {
  if (options === null || typeof options !== "object") {
    throw createError("INVALID_ARGUMENT", "trimMessages needs its options", { module: "langchain", path: "options", expected: "{ maxTokens, tokenCounter | model, … }", given: options });
  }
  const { maxTokens, strategy = "last", allowPartial, textSplitter, startOn, endOn } = options;
  if (strategy !== "last") refuse("strategy", "\"last\" (an agent's window keeps the newest turns; \"first\" is not offered)", strategy);
  if (allowPartial === true && textSplitter !== undefined) refuse("textSplitter", "no textSplitter: a message is cut head + tail with a marker, only when the last turn alone does not fit", "a textSplitter");
  if (startOn !== undefined && !typesOf(startOn, "startOn").includes("human")) {
    refuse("startOn", "\"human\" (or HumanMessage), alone or in a list: a window starts on a user message", typesOf(startOn, "startOn"));
  }
  const model = modelOf(options);
  const tools = options.tools === undefined ? undefined : toolDefinitionsOf(options.tools);
  const endTypes = endOn === undefined ? undefined : typesOf(endOn, "endOn");
  return {
    fitter: () => createWindowFitter(fitterOptions({ model, budget: maxTokens, tools })),
    endOn: (messages) => {
      if (endTypes === undefined) return messages;
      let end = messages.length;
      while (end > 0 && !endTypes.includes(messages[end - 1]!.getType())) end--;
      return end === messages.length ? messages : messages.slice(0, end);
    },
  };
}

/** The model the counter is for: `model`, or the chat model given as `tokenCounter`. */
function modelOf(options: TrimMessagesOptions): string {
  const { tokenCounter, model } = options;
  if (typeof model === "string") {
    if (tokenCounter !== undefined) refuse("tokenCounter", "either `model` or a chat model as `tokenCounter`, not both", "both");
    return model;
  }
  if (typeof tokenCounter === "function") {
    refuse("tokenCounter", "a chat model (tokenCounter: new ChatOpenAI({ model })) or `model: \"<name>\"`: a counting function cannot count the provider's request exactly", "a function");
  }
  const named = tokenCounter as { model?: unknown; modelName?: unknown } | undefined;
  const name = typeof named?.model === "string" ? named.model : typeof named?.modelName === "string" ? named.modelName : undefined;
  if (name === undefined) {
    throw langchainErrors.create("NO_MODEL", "trimMessages cannot tell which model to count for", { module: "langchain", path: "tokenCounter", expected: "a chat model with a `model` name, or the option `model`", given: tokenCounter === undefined ? "nothing" : typeof tokenCounter });
  }
  return name;
}

const CLASS_TYPES: readonly [MessageClass, string][] = [
  [HumanMessage, "human"],
  [AIMessage, "ai"],
  [SystemMessage, "system"],
  [ToolMessage, "tool"],
];

function typesOf(value: MessageTypeOrClass | readonly MessageTypeOrClass[], path: string): string[] {
  const list = (Array.isArray(value) ? value : [value]) as readonly MessageTypeOrClass[];
  return list.map((item, k) => {
    if (typeof item === "string") return item;
    const known = CLASS_TYPES.find(([cls]) => cls === item);
    if (known) return known[1];
    return refuse(`${path}[${k}]`, "a message type name or one of HumanMessage, AIMessage, SystemMessage, ToolMessage", item);
  });
}

function refuse(path: string, expected: string, given: unknown): never {
  throw langchainErrors.create("UNSUPPORTED_OPTION", `trimMessages option ${path}`, { module: "langchain", path, expected, given });
}
