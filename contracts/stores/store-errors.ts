import { defineErrorCodes } from "../errors.js";

/**
 * The codes of the blob, graph and task store contracts (contracts/BLOBS.md, GRAPH.md, TASKS.md;
 * rows in contracts/ERRORS.md). Bad arguments (a key with `..`, a depth of -1, an unknown status)
 * are the built-in INVALID_ARGUMENT; a server that cannot be reached is STORAGE_UNAVAILABLE; a
 * store used after disconnect() is STORE_CLOSED.
 */
export const storeErrors = defineErrorCodes("STORE", {
  BLOB_NOT_FOUND: "No blob is stored under this key",
  BLOB_TOO_LARGE: "The blob is larger than the store's maxBlobBytes",
  ENTITY_NOT_FOUND: "No graph entity has this id",
  TASK_LIST_NOT_FOUND: "No task list has this id",
  TASK_NOT_FOUND: "The task list has no task with this id",
});

export type StoreErrorCode = keyof typeof storeErrors.codes;
