import { describeMemoryContract } from "../../testing/memory-contract.js";
import { LocalMemory } from "../../modules/memory-local/index.js";
import { NullMemory } from "../../modules/memory-null/index.js";

describeMemoryContract("memory-local", async (limits) => ({ memory: new LocalMemory(limits) }));
describeMemoryContract("memory-null", async (limits) => ({ memory: new NullMemory(limits) }), { storesNothing: true });
