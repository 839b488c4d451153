import { describe, expect, it } from "vitest";
import { agentStrategies, coreStrategies, recallStrategy, selectorStrategies, strategyRegistry, summarizingStrategies, trimmingStrategies } from "../index.js";

// The built-in catalogue is the union of the groups named by what they do; the groups' earlier
// names (named after where the strategies came from) still import and hold the same definitions.
describe("strategy groups", () => {
  const groups = { trimmingStrategies, summarizingStrategies, selectorStrategies } as Record<string, Record<string, { name: string }>>;

  it("every built-in strategy is in exactly one group (recall stands alone), under its own name", () => {
    const grouped = Object.values(groups).flatMap((group) => Object.entries(group));
    for (const [key, definition] of grouped) expect(definition.name).toBe(key);
    const names = grouped.map(([key]) => key);
    expect(new Set(names).size).toBe(names.length);
    expect([...names, recallStrategy.name].sort()).toEqual(strategyRegistry.names());
  });

  it("agentStrategies and coreStrategies keep their members", () => {
    expect(agentStrategies).toBe(trimmingStrategies);
    expect(Object.keys(coreStrategies).sort()).toEqual(["hybrid", "summarization", "summarizing", "unbounded"]);
    expect(coreStrategies.unbounded).toBe(selectorStrategies.unbounded);
    expect(coreStrategies.summarization).toBe(summarizingStrategies.summarization);
  });
});
