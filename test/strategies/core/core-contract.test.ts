import { describeContextManagerContract, propertyRuns } from "../../../testing/index.js";
import { createSession } from "../../../src/session/index.js";

// The core contexts seed's strategies, the Steamship selectors and the summarizing pipeline
// (contracts/STRATEGIES.md) inside context-simple, through the exported conformance suite.
const pipelines: Record<string, unknown[]> = {
  unbounded: [{ use: "unbounded" }],
  hybrid: [{ use: "hybrid", recentN: 4, maxTotal: 10 }],
  "message-window": [{ use: "message-window", n: 6 }],
  "token-window": [{ use: "token-window", maxTokens: 1_500 }],
  summarization: [{ use: "summarization", recentTokenBudget: 800, minOldTokens: 100, summaryMaxTokens: 150 }],
  summarizing: [{ use: "summarizing", contextWindow: 3_000, summaryMaxTokens: 150 }],
  "summarizing pipeline: tool-result-compaction → summarization": [
    { use: "tool-result-compaction", maxChars: 500 },
    { use: "summarization", recentTokenBudget: 1_000, minOldTokens: 200, summaryMaxTokens: 200 },
  ],
};

for (const [name, strategies] of Object.entries(pipelines)) {
  describeContextManagerContract(
    `context-simple with strategies: ${name}`,
    async () => {
      const session = await createSession({ session: { context: { module: "context-simple", config: { strategies } } } });
      return { context: session.context, hooks: session.hooks, close: session.close };
    },
    { numRuns: Math.max(100, Math.floor(propertyRuns(1_000) / 10)) },
  );
}
