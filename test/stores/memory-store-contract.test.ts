import { describeHistoryStoreContract } from "../../contracts/testing/history-store-contract.js";
import { MemoryStore } from "../../modules/stores/index.js";

describeHistoryStoreContract("memory", async () => ({ store: new MemoryStore() }));
