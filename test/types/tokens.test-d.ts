/** The public types of @amplifier-ts/tokens (checked by `tsc --noEmit`). */
import { describe, expectTypeOf, it } from "vitest";
import {
  countTokens,
  getModelInfo,
  getTokenCounter,
  listModels,
  registerModel,
  type ModelInfo,
  type TokenCounter,
  type Tokenizer,
} from "../../modules/tokens/index.js";
import type { Message } from "../../contracts/generated/message.js";
import type { ToolDefinition } from "../../contracts/provider.js";

describe("@amplifier-ts/tokens types", () => {
  it("countTokens is synchronous and needs a model", () => {
    expectTypeOf(countTokens).parameter(0).toEqualTypeOf<Message[]>();
    expectTypeOf(countTokens).returns.toEqualTypeOf<number>();
    expectTypeOf<{ model: string; tools?: ToolDefinition[] }>().toMatchTypeOf<Parameters<typeof countTokens>[1]>();
    // @ts-expect-error model is required
    countTokens([], { tools: [] });
  });

  it("getTokenCounter takes an optional model and options, returns a TokenCounter", () => {
    expectTypeOf(getTokenCounter).returns.toEqualTypeOf<TokenCounter>();
    expectTypeOf(getTokenCounter).toBeCallableWith();
    expectTypeOf(getTokenCounter).toBeCallableWith("gpt-4o", { safetyFactor: 1.1, onWarning: (_m: string) => {} });
  });

  it("TokenCounter's counting methods all return numbers; its facts are read-only", () => {
    expectTypeOf<TokenCounter["countMessage"]>().toEqualTypeOf<(message: Message) => number>();
    expectTypeOf<TokenCounter["countRequest"]>().returns.toEqualTypeOf<number>();
    expectTypeOf<TokenCounter["countTools"]>().returns.toEqualTypeOf<number>();
    expectTypeOf<TokenCounter["countText"]>().parameter(0).toEqualTypeOf<string>();
    expectTypeOf<TokenCounter["replyPriming"]>().toEqualTypeOf<number>();
    const counter = getTokenCounter();
    // @ts-expect-error read-only
    counter.model = "x";
  });

  it("a Tokenizer is an encoding name and a synchronous count", () => {
    expectTypeOf<{ encoding: string; count: (text: string) => number }>().toMatchTypeOf<Tokenizer>();
    // @ts-expect-error count must be synchronous
    const asyncTokenizer: Tokenizer = { encoding: "x", count: async (_t: string) => 1 };
    void asyncTokenizer;
  });

  it("the registry", () => {
    expectTypeOf(getModelInfo).returns.toEqualTypeOf<ModelInfo | undefined>();
    expectTypeOf(listModels).returns.toEqualTypeOf<ModelInfo[]>();
    expectTypeOf(registerModel).returns.toEqualTypeOf<() => void>();
    expectTypeOf<ModelInfo["encoding"]>().toEqualTypeOf<"cl100k_base" | "o200k_base">();
  });
});
