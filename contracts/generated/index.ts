/* eslint-disable */
/**
 * Generated from contracts/schemas/** by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

export type { AmplifierConfig, ModuleConfig, ModuleRef, ModuleSpecifier, NamedModuleRef, SessionConfig, SessionModuleRef, StoresConfig } from "./amplifier-config.js";
export type { HookAction, HookResult } from "./hook-result.js";
export type { JsonValue, MemoryEventJson, _Schema0 } from "./memory-event.js";
export type { CompactionBlock, ContentBlock, ImageBlock, ImageUrlBlock, Message, MessageMetadata, RedactedThinkingBlock, Role, SummaryInfo, TextBlock, ThinkingBlock, ToolCall, ToolResultBlock, ToolUseBlock } from "./message.js";
export type { ProviderInfo } from "./provider-info.js";
