import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { describeContextManagerContract, keywordEmbedder, propertyRuns } from "../../testing/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { createSession } from "../../src/session/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

// Pipelines with recall run inside both context modules through the exported conformance suite:
// every window invariant must hold with recalled messages in the window.
const pipelines: Record<string, unknown[]> = {
  recall: [{ use: "recall" }],
  "recall (k 2, share 0.6)": [{ use: "recall", k: 2, share: 0.6 }],
  "tool-result-compaction → recall": [{ use: "tool-result-compaction", maxChars: 300 }, { use: "recall", k: 4 }],
  "recall → sliding-window": [{ use: "recall", query: "last-message" }, { use: "sliding-window", maxMessages: 12 }],
};

for (const [name, strategies] of Object.entries(pipelines)) {
  for (const module of ["context-simple", "context-persistent"] as const) {
    describeContextManagerContract(
      `${module} with strategies: ${name}`,
      async () => {
        const config = module === "context-persistent" ? { strategies, store: { type: "memory" } } : { strategies };
        const session = await createSession({ session: { context: { module, config } } });
        return { context: session.context, hooks: session.hooks, close: session.close };
      },
      // A tenth of the modules' case count, as test/strategies/strategies-contract.test.ts.
      { numRuns: Math.max(100, Math.floor(propertyRuns(1_000) / 10)) },
    );
  }
}

// Hybrid ranking (an embedder registered as the coordinator capability) under the same invariants.
describeContextManagerContract(
  "context-simple with an embedder: [recall]",
  async () => {
    const coordinator = new Coordinator();
    coordinator.registerCapability(EMBEDDER_CAPABILITY, keywordEmbedder);
    const context = await mountSimple(coordinator, { strategies: [{ use: "recall", k: 4 }] });
    return { context, hooks: coordinator.hooks, close: () => coordinator.cleanup() };
  },
  { numRuns: Math.max(100, Math.floor(propertyRuns(1_000) / 10)) },
);
