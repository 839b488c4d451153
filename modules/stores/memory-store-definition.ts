import { z } from "zod";
import { defineHistoryStore } from "./history-store-definition.js";
import { MemoryStore } from "./memory-store.js";

/** `{ "type": "memory" }`: history in this process (tests, the fallback when storage cannot be used). */
export const memoryHistoryStore = defineHistoryStore({
  type: "memory",
  description: "history in this process; nothing survives it",
  options: z.looseObject({}),
  create: () => new MemoryStore(),
});
