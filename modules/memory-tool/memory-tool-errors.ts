import { defineErrorCodes, type AmplifierError } from "@amplifier-ts/contracts";

/**
 * The memory tool's codes (contracts/ERRORS.md). Options are checked where the package is
 * entered (createMemoryTool, mount); what goes wrong while the model uses the tool is told to the
 * model as an `isError` result, never thrown — except a store that cannot be reached
 * (STORAGE_UNAVAILABLE), which the orchestrator's runTool reports as tool:error.
 */
export const memoryToolErrors = defineErrorCodes("MEMORY_TOOL", {
  INVALID_OPTIONS: "An option of the memory tool is not what it expects",
  TREE_BUSY: "Another writer held the memory tree for longer than lockTimeoutMs",
  UNSAFE_PATH: "The file store found a symbolic link or a special file inside a memory tree",
  DRIVER_MISSING: "The memory tree's store type needs a package that is not installed",
});

export type MemoryToolErrorCode = keyof typeof memoryToolErrors.codes;

export function memoryToolError(code: MemoryToolErrorCode, message: string, details: Record<string, unknown> = {}): AmplifierError {
  // `toolOutput`: the sentence alone, for the model (the error's message adds the code and details, a file's place on disk among them).
  return memoryToolErrors.create(code, message, { module: "memory-tool", toolOutput: `Error: ${message}`, ...details });
}
