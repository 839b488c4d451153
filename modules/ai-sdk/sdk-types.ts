/**
 * The AI SDK shapes this package reads, derived from the `ai` package's own types (type-only: the
 * package needs `ai` at run time only where the user already has it). The provider-level prompt
 * (`LanguageModelV3Prompt`, what a middleware's `transformParams` sees) is not ModelMessage: user
 * and assistant content are always part arrays, images are `file` parts with a media type, a
 * provider-executed tool's result sits in the assistant message, and tool messages may carry
 * approval responses.
 */
import type { LanguageModelMiddleware, ModelMessage } from "ai";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;

/** The call options a middleware's transformParams receives and returns. */
export type ProviderCallOptions = Parameters<TransformParams>[0]["params"];
/** `LanguageModelV3Prompt`. */
export type ProviderPrompt = ProviderCallOptions["prompt"];
export type ProviderMessage = ProviderPrompt[number];
export type ProviderPart = Exclude<ProviderMessage["content"], string>[number];
export type ProviderToolResultPart = Extract<ProviderPart, { type: "tool-result" }>;
export type ProviderToolResultOutput = ProviderToolResultPart["output"];
/** `params.tools`: function tools and provider-defined tools. */
export type ProviderTool = NonNullable<ProviderCallOptions["tools"]>[number];
/** The wrapped model (its `modelId` names the budget when no model or budget is given). */
export type WrappedModel = Parameters<TransformParams>[0]["model"];

export type { LanguageModelMiddleware, ModelMessage };
