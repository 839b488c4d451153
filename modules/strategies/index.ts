export { CompactionPipeline, differs, describeFailure, type PipelineRun, type StrategyFailure } from "./pipeline.js";
export { defineStrategy, type StrategyDefinition, type AnyStrategyDefinition, type StrategyDeps, type StrategySpec } from "./strategy-definition.js";
export { StrategyRegistry, strategyRegistry, createStrategy, createPipeline } from "./registry.js";
export { ExplainLog, silentExplainRecorder, type ExplainEntry } from "./explain-recorder.js";
export { HistoryUnits } from "./history-units.js";
export { SteppedCut } from "./stepped-cut.js";
export * from "./agents/index.js";
export { coreStrategies } from "./core/index.js";
export { selectorStrategies } from "./selectors/index.js";
