// The blob, graph and task store contracts (contracts/BLOBS.md, GRAPH.md, TASKS.md), their
// store capabilities and the agent context type (each module owns its config schema).
export * from "./agent-context.js";
export * from "./blob-store.js";
export * from "./graph-store.js";
export * from "./memory-tree.js";
export * from "./store-capabilities.js";
export * from "./store-errors.js";
export * from "./task-store.js";
