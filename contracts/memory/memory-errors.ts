import { defineErrorCodes } from "../errors.js";

/**
 * The memory contract's own codes (contracts/ERRORS.md). Bad arguments are the built-in
 * INVALID_ARGUMENT / INVALID_SESSION_ID; storage failures of the server-backed memories are the
 * stores' STORAGE_UNAVAILABLE / STORAGE_WRITE_FAILED.
 */
export const memoryErrors = defineErrorCodes("MEMORY", {
  SESSION_EXISTS: "A memory session with this id already exists",
  INVALID_EVENT: "A memory event (or its JSON) does not match the memory contract",
  CLOSED: "The memory has been closed",
});
