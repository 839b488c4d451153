// amplifier-ts/testing: the conformance suites every implementation runs — ours and third
// parties' — and the pieces they are made of.
export { describeContextManagerContract, type ContextUnderTest, type ContextContractOptions } from "./context-manager-contract.js";
export { describeHistoryStoreContract } from "./history-store-contract.js";
export { describeMemoryContract, type MemoryContractOptions, type MemoryLimitsForTest, type MemoryUnderTest } from "./memory-contract.js";
export { describeVectorStoreContract, keywordEmbedder, type VectorStoreUnderTest, type VectorStoreFactory } from "./vector-store-contract.js";
export { checkWindowInvariants, isInstruction, isTurnNote } from "./window-invariants.js";
export { toolDefinitionsArbitrary, toolHistoryArbitrary } from "./arbitraries.js";
export { propertyRuns } from "./property-runs.js";
export { describeBlobStoreContract, INVALID_BLOB_KEYS, type BlobStoreContractOptions, type BlobStoreFactory, type BlobStoreUnderTest } from "./blob-store-contract.js";
export { describeGraphStoreContract, referenceNeighbors, type GraphStoreContractOptions, type GraphStoreFactory, type GraphStoreUnderTest } from "./graph-store-contract.js";
export { describeTaskStoreContract, type ClaimerProcess, type TaskStoreContractOptions, type TaskStoreFactory, type TaskStoreUnderTest } from "./task-store-contract.js";
