import { summarizingStrategies } from "./summarizing/index.js";
import { trimmingStrategies } from "./trimming/index.js";
import { unboundedStrategy } from "./selectors/unbounded.js";

/**
 * The groups' earlier names, kept so existing imports still work. They were named after where
 * the strategies came from; the groups are now named by what they do (trimmingStrategies,
 * summarizingStrategies, selectorStrategies).
 */

/** @deprecated Use `trimmingStrategies` (same object). */
export const agentStrategies = trimmingStrategies;

/** @deprecated Use `summarizingStrategies` and `selectorStrategies.unbounded` (this object holds unbounded and the three summarizing strategies). */
export const coreStrategies = Object.freeze({ unbounded: unboundedStrategy, ...summarizingStrategies });
