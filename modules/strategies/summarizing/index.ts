import { hybridStrategy } from "./hybrid.js";
import { summarizationStrategy } from "./summarization.js";
import { summarizingStrategy } from "./summarizing.js";

export { SummarizationCompaction, summarizationStrategy, summarizationOptions, type SummarizationOptions, type SummarizerDeps } from "./summarization.js";
export { SummarizingContext, summarizingStrategy, summarizingOptions, type SummarizingOptions, type SummarizingDeps } from "./summarizing.js";
export { HybridContext, hybridStrategy, hybridOptions, type HybridOptions, type HybridStores, type HybridDeps } from "./hybrid.js";
export { makeSummaryMessage, summaryTextOf, isSummaryMessage, SUMMARY_HEADER, type SummaryOrigin } from "./summary-message.js";

/** The strategies that replace old turns by a summary, name → definition (the registry imports this). */
export const summarizingStrategies = {
  summarization: summarizationStrategy,
  summarizing: summarizingStrategy,
  hybrid: hybridStrategy,
};
