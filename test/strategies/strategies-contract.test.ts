import { describeContextManagerContract, propertyRuns } from "../../testing/index.js";
import { createSession } from "../../src/session/index.js";

// Every agents strategy alone, and the documented pipelines (contracts/STRATEGIES.md), run inside
// context-simple through the exported conformance suite: every window invariant must hold.
const pipelines: Record<string, unknown[]> = {
  "sliding-window": [{ use: "sliding-window", maxMessages: 8 }],
  "tool-result-compaction": [{ use: "tool-result-compaction", maxChars: 300 }],
  "selective-tool-call": [{ use: "selective-tool-call", keepRecentGroups: 2 }],
  truncation: [{ use: "truncation", maxMessages: 6, maxChars: 4_000 }],
  "token-budget (no children)": [{ use: "token-budget", budget: 1_500 }],
  "seed pipeline: tool-result-compaction → selective-tool-call → sliding-window": [
    { use: "tool-result-compaction", maxChars: 500 },
    { use: "selective-tool-call", keepRecentGroups: 5 },
    { use: "sliding-window", maxMessages: 40 },
  ],
  "token-budget over cheap-to-aggressive children": [
    {
      use: "token-budget",
      triggerRatio: 0.8,
      strategies: [
        { use: "tool-result-compaction", maxChars: 400 },
        { use: "selective-tool-call", keepRecentGroups: 3 },
        { use: "sliding-window", maxMessages: 12 },
        { use: "truncation", maxMessages: 4 },
      ],
    },
  ],
};

for (const [name, strategies] of Object.entries(pipelines)) {
  describeContextManagerContract(
    `context-simple with strategies: ${name}`,
    async () => {
      const session = await createSession({ session: { context: { module: "context-simple", config: { strategies } } } });
      return { context: session.context, hooks: session.hooks, close: session.close };
    },
    // A tenth of the modules' case count (CI: 1,000 per pipeline), so CI stays within its time
    // budget; `npm run test:deep` raises it with AMPLIFIER_PROPERTY_RUNS.
    { numRuns: Math.max(100, Math.floor(propertyRuns(1_000) / 10)) },
  );
}
