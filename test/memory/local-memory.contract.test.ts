import { describeMemoryContract } from "../../testing/memory-contract.js";
import { LocalMemory } from "../../modules/memory-local/index.js";
import { NullMemory } from "../../modules/memory-null/index.js";

describeMemoryContract("memory-local", async (limits) => ({ memory: new LocalMemory(limits) }));
describeMemoryContract("memory-null", async (limits) => ({ memory: new NullMemory(limits) }), { storesNothing: true });

// A memory written for version 1 of the contract (no getRecentEvents): recentMemoryEvents reads every session for it.
describeMemoryContract(
  "a memory without getRecentEvents (contract version 1)",
  async (limits) => {
    const memory = new LocalMemory(limits);
    Object.defineProperty(memory, "getRecentEvents", { value: undefined });
    return { memory };
  },
  { withoutRecentEvents: true },
);
