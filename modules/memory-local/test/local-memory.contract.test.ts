import { describeMemoryContract } from "../../../testing/memory-contract.js";
import { LocalMemory } from "../index.js";

describeMemoryContract("memory-local", async (limits) => ({ memory: new LocalMemory(limits) }));
