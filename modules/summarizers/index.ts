// Summarizers: the Summarizer contract (contracts/compaction-strategy.ts) and the built-ins.
export type { Summarizer } from "@amplifier-ts/contracts";
export { ExtractiveSummarizer, EXTRACTIVE_HEADING, type ExtractiveSummarizerOptions, type TextCounter } from "./extractive-summarizer.js";
export { ProviderSummarizer, SUMMARY_SYSTEM_PROMPT, clipToTokens, type ProviderSummarizerOptions } from "./provider-summarizer.js";
export { summarizeSafely, withSummarizerTimeout, DEFAULT_SUMMARIZER_TIMEOUT_MS, type SummaryOutcome, type SummarizeSafelyOptions } from "./summarizer-guard.js";
export { messageText, transcript, type MessageText } from "./message-text.js";
export { configuredSummarizer, providerLookup, summarizerConfigSchema, type SummarizerConfig, type ProviderLookup } from "./configured-summarizer.js";
export { openTask, mentionsOf } from "./mentions.js";
