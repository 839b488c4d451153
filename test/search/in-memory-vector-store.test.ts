import { describeVectorStoreContract } from "../../testing/index.js";
import { InMemoryVectorStore } from "../../modules/search/in-memory-vector-store.js";

describeVectorStoreContract("in-memory", async ({ embedder }) => ({ store: new InMemoryVectorStore(embedder ? { embedder } : {}) }));
