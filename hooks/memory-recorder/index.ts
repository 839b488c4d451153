// @amplifier-ts/module-memory-recorder: the session's bus events become agent-memory events.
import type { CoordinatorContract, ModuleMeta } from "@amplifier-ts/contracts";
import { z } from "zod";
import { recordIntoMemory, type MemoryRecorderOptions } from "./recorder.js";

export { recordIntoMemory, RECORDED_EVENTS, type MemoryRecorderOptions } from "./recorder.js";
export { finishDelegation, startDelegation, type StartDelegationOptions } from "./delegation.js";

export const meta: ModuleMeta = {
  name: "memory-recorder",
  version: "0.1.0",
  kind: "hook",
  description: "Records prompts, tool calls and results, answers, errors and delegations into the session's memory.",
  configSchema: z.strictObject({
    sessionId: z.string().min(1).optional(),
    appName: z.string().optional(),
    userId: z.string().optional(),
  }),
};

/** Registers the recorder on coordinator.hooks; the returned teardown runs at cleanup. */
export function mount(coordinator: CoordinatorContract, config: MemoryRecorderOptions = {}): () => void {
  return recordIntoMemory(coordinator, config);
}
