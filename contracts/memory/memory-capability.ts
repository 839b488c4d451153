import type { CoordinatorContract } from "../coordinator.js";
import { MEMORY_CAPABILITY, type Memory } from "./memory.js";

/** The session's memory (the "memory" capability), or undefined when none is mounted. */
export function memoryOf(coordinator: Pick<CoordinatorContract, "getCapability">): Memory | undefined {
  return coordinator.getCapability<Memory>(MEMORY_CAPABILITY);
}
