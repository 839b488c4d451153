import { hybridStrategy } from "./hybrid.js";
import { summarizationStrategy } from "./summarization.js";
import { summarizingStrategy } from "./summarizing.js";
import { unboundedStrategy } from "../selectors/unbounded.js";

export { UnboundedContext, unboundedStrategy, unboundedOptions } from "../selectors/unbounded.js";
export { SummarizationCompaction, summarizationStrategy, summarizationOptions, type SummarizationOptions, type SummarizerDeps } from "./summarization.js";
export { SummarizingContext, summarizingStrategy, summarizingOptions, type SummarizingOptions, type SummarizingDeps } from "./summarizing.js";
export { HybridContext, hybridStrategy, hybridOptions, type HybridOptions, type HybridStores, type HybridDeps } from "./hybrid.js";
export { makeSummaryMessage, summaryTextOf, isSummaryMessage, SUMMARY_HEADER, type SummaryOrigin } from "./summary-message.js";

/**
 * The core contexts seed's strategies plus the agents/context seed's summarization, name →
 * definition (the registry imports this). `sliding-window` and `token-budget` of the core seed
 * are the agents/ ones (same names, same behaviour).
 */
export const coreStrategies = {
  unbounded: unboundedStrategy,
  summarization: summarizationStrategy,
  summarizing: summarizingStrategy,
  hybrid: hybridStrategy,
};
