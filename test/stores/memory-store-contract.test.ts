import { describeHistoryStoreContract } from "../../testing/history-store-contract.js";
import { MemoryStore } from "../../src/modules/stores.js";

describeHistoryStoreContract("memory", async () => ({ store: new MemoryStore() }), { attachments: true });
