import { selectiveToolCallStrategy } from "./selective-tool-call.js";
import { slidingWindowStrategy } from "./sliding-window.js";
import { tokenBudgetStrategy } from "./token-budget.js";
import { toolResultCompactionStrategy } from "./tool-result-compaction.js";
import { truncationStrategy } from "./truncation.js";

export { SlidingWindowCompaction, slidingWindowStrategy, slidingWindowOptions, type SlidingWindowOptions } from "./sliding-window.js";
export { ToolResultCompaction, toolResultCompactionStrategy, toolResultCompactionOptions, type ToolResultCompactionOptions } from "./tool-result-compaction.js";
export { SelectiveToolCallCompaction, selectiveToolCallStrategy, selectiveToolCallOptions, type SelectiveToolCallOptions } from "./selective-tool-call.js";
export { TruncationCompaction, truncationStrategy, truncationOptions, type TruncationOptions } from "./truncation.js";
export { TokenBudgetCompaction, tokenBudgetStrategy, tokenBudgetOptions, type TokenBudgetOptions } from "./token-budget.js";

/** The strategies that drop or shorten old turns to fit the budget, name → definition (the registry imports this). */
export const trimmingStrategies = {
  "sliding-window": slidingWindowStrategy,
  "tool-result-compaction": toolResultCompactionStrategy,
  "selective-tool-call": selectiveToolCallStrategy,
  truncation: truncationStrategy,
  "token-budget": tokenBudgetStrategy,
};
