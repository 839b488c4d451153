/**
 * The zod validators and the types generated from the JSON Schemas cannot drift: each `z.infer`
 * equals its generated type (checked by `tsc --noEmit`). Together with the shared fixtures run
 * through ajv and zod (test/contracts/schema-zod-drift.test.ts), schema ⇔ zod ⇔ TS type.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type {
  AmplifierConfig,
  ContentBlock,
  HookResult,
  Message,
  MessageMetadata,
  ProviderInfo,
  ToolCall,
} from "../../contracts/generated/index.js";
import {
  amplifierConfigSchema,
  contentBlockSchema,
  hookResultSchema,
  isValidMessage,
  messageMetadataSchema,
  messageSchema,
  providerInfoSchema,
  toolCallSchema,
  validateHookResult,
  validateMessage,
  validateMessages,
  validateProviderInfo,
  type ValidationIssue,
} from "../../contracts/validators/index.js";
import type * as contracts from "../../contracts/index.js";

/** Two-way assignability, a second opinion next to toEqualTypeOf's structural identity. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe("z.infer of each validator is its generated type", () => {
  it("Message and its parts", () => {
    expectTypeOf<z.infer<typeof messageSchema>>().toEqualTypeOf<Message>();
    expectTypeOf<z.infer<typeof contentBlockSchema>>().toEqualTypeOf<ContentBlock>();
    expectTypeOf<z.infer<typeof toolCallSchema>>().toEqualTypeOf<ToolCall>();
    expectTypeOf<z.infer<typeof messageMetadataSchema>>().toEqualTypeOf<MessageMetadata>();
    expectTypeOf<Same<z.infer<typeof messageSchema>, Message>>().toEqualTypeOf<true>();
  });

  it("HookResult", () => {
    expectTypeOf<z.infer<typeof hookResultSchema>>().toEqualTypeOf<HookResult>();
    expectTypeOf<Same<z.infer<typeof hookResultSchema>, HookResult>>().toEqualTypeOf<true>();
  });

  it("ProviderInfo", () => {
    expectTypeOf<z.infer<typeof providerInfoSchema>>().toEqualTypeOf<ProviderInfo>();
    expectTypeOf<Same<z.infer<typeof providerInfoSchema>, ProviderInfo>>().toEqualTypeOf<true>();
  });

  it("AmplifierConfig", () => {
    expectTypeOf<Same<z.infer<typeof amplifierConfigSchema>, AmplifierConfig>>().toEqualTypeOf<true>();
  });
});

describe("validator signatures", () => {
  it("validate* take unknown and an optional root path, and return the contract type", () => {
    expectTypeOf(validateMessage).toEqualTypeOf<(value: unknown, path?: string) => Message>();
    expectTypeOf(validateMessages).toEqualTypeOf<(values: unknown, path?: string) => Message[]>();
    expectTypeOf(validateHookResult).toEqualTypeOf<(value: unknown, path?: string) => HookResult>();
    expectTypeOf(validateProviderInfo).toEqualTypeOf<(value: unknown, path?: string) => ProviderInfo>();
  });

  it("isValidMessage narrows", () => {
    const value: unknown = {};
    if (isValidMessage(value)) expectTypeOf(value).toEqualTypeOf<Message>();
  });

  it("a ValidationIssue names path, expected, given and maybe a hint", () => {
    expectTypeOf<ValidationIssue>().toEqualTypeOf<{ path: string; expected: string; given: unknown; hint?: string }>();
  });

  it("contracts/index re-exports the generated types and the validators", () => {
    expectTypeOf<contracts.Message>().toEqualTypeOf<Message>();
    expectTypeOf<contracts.ProviderInfo>().toEqualTypeOf<ProviderInfo>();
    expectTypeOf<typeof contracts.validateMessage>().toEqualTypeOf<typeof validateMessage>();
  });
});
