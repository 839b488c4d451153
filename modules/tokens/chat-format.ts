/**
 * How a chat request turns into tokens — the constants of OpenAI's chat format.
 *
 * The message, name and priming figures are the ones OpenAI's cookbook ("How to count tokens
 * with tiktoken") verified against the API for gpt-3.5-turbo, gpt-4, gpt-4o and gpt-4o-mini:
 *
 * | part                      | tokens                                                    |
 * |---------------------------|-----------------------------------------------------------|
 * | every message             | 3 (`<|start|>{role}\n{content}<|end|>` framing) + role    |
 * | a `name` field            | its text + 1                                              |
 * | reply priming (once)      | 3 (`<|start|>assistant<|message|>`)                       |
 * | tool definitions (once)   | see tool-definitions.ts; `functionInit` 10 on cl100k, 7 on o200k |
 *
 * The tool-call figures are NOT published by OpenAI; they are estimates fitted to observed
 * `usage.prompt_tokens` (an assistant call plus its result costs about 5 tokens beyond the
 * text of name, arguments and result) and rounded up, so a window errs on the safe side.
 * The same format is applied to non-OpenAI models, whose overheads are not public either;
 * their safety factor covers the difference (see contracts/TOKENS.md).
 */
export interface ChatFormat {
  /** Framing of every message, on top of the role's own tokens. */
  readonly tokensPerMessage: number;
  /** Added when a message carries a `name`, on top of the name's own tokens. */
  readonly tokensPerName: number;
  /** Once per request: the assistant turn the model completes. */
  readonly replyPriming: number;
  /** Per OpenAI tool call or Anthropic tool_use block, on top of name and arguments. */
  readonly tokensPerToolCall: number;
  /** Per tool message or Anthropic tool_result block, on top of its content. */
  readonly tokensPerToolResult: number;
  /** Per content block after the first (text parts are joined by the provider). */
  readonly tokensPerExtraBlock: number;
  readonly toolDefinitions: ToolDefinitionFormat;
}

/** The cookbook's tool-definition constants (names follow its `num_tokens_for_tools`). */
export interface ToolDefinitionFormat {
  /** Per function. */
  readonly functionInit: number;
  /** Per function that has at least one property. */
  readonly propertiesInit: number;
  /** Per property. */
  readonly propertyKey: number;
  /** Per property that has an `enum` (negative: the enum replaces part of the type line). */
  readonly enumInit: number;
  /** Per enum value, on top of the value's own tokens. */
  readonly enumItem: number;
  /** Once, after the last function. */
  readonly functionsEnd: number;
}

const BASE = {
  tokensPerMessage: 3,
  tokensPerName: 1,
  replyPriming: 3,
  tokensPerToolCall: 4,
  tokensPerToolResult: 2,
  tokensPerExtraBlock: 1,
} as const;

const CL100K_TOOLS: ToolDefinitionFormat = {
  functionInit: 10,
  propertiesInit: 3,
  propertyKey: 3,
  enumInit: -3,
  enumItem: 3,
  functionsEnd: 12,
};

const O200K_TOOLS: ToolDefinitionFormat = { ...CL100K_TOOLS, functionInit: 7 };

const CL100K_FORMAT: ChatFormat = Object.freeze({ ...BASE, toolDefinitions: Object.freeze(CL100K_TOOLS) });
const O200K_FORMAT: ChatFormat = Object.freeze({ ...BASE, toolDefinitions: Object.freeze(O200K_TOOLS) });

/**
 * The chat format for an encoding. o200k models (gpt-4o and later) frame tool definitions
 * with 7 tokens per function, cl100k models with 10; any other encoding (a plugged-in
 * tokenizer) gets the larger cl100k figures, so an unknown format is over- not under-counted.
 */
export function chatFormatFor(encoding: string): ChatFormat {
  return encoding === "o200k_base" ? O200K_FORMAT : CL100K_FORMAT;
}
