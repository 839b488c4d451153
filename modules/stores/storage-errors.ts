import { createError, type AmplifierError } from "@amplifier-ts/contracts";

/**
 * Failure policy of a file-backed store, by moment:
 *
 * | when | code | what the caller does |
 * |---|---|---|
 * | opening a session (folder, lock, reading the file) | STORAGE_UNAVAILABLE | context-persistent falls back to memory (or fails with `strict`) |
 * | writing (append, rewrite, delete) | STORAGE_WRITE_FAILED | the message is not stored (a failed append's bytes are cut off again); the caller's addMessage rejects |
 * | an append whose bytes could not be cut off again | STORAGE_WRITE_UNCERTAIN | the message may be in the file (a later load finds it); a retry is a no-op there (idempotent by id) |
 *
 * Both carry the system error as `cause`, the file, and a hint naming the likely reason.
 */
export function storageUnavailable(cause: unknown, module: string, file: string, action: string): AmplifierError {
  const code = errnoOf(cause);
  return createError("STORAGE_UNAVAILABLE", `Cannot ${action}: ${code ?? describeCause(cause)}`, {
    module,
    file,
    hint: hintFor(code),
    cause,
    errno: code,
  });
}

export function storageWriteFailed(cause: unknown, module: string, file: string, action: string): AmplifierError {
  const code = errnoOf(cause);
  return createError("STORAGE_WRITE_FAILED", `Cannot ${action}: ${code ?? describeCause(cause)}; nothing was stored`, {
    module,
    file,
    hint: hintFor(code),
    cause,
    errno: code,
  });
}

/** A write that may have reached the file (its bytes could not be removed again): `messageIds` names what it carried. */
export function storageWriteUncertain(cause: unknown, module: string, file: string, action: string, messageIds: (string | undefined)[]): AmplifierError {
  const code = errnoOf(cause);
  return createError("STORAGE_WRITE_UNCERTAIN", `Cannot ${action}: ${code ?? describeCause(cause)}; the records could not be removed again, so they may be stored`, {
    module,
    file,
    hint: `${hintFor(code)}; retrying the same messages is safe (appends are idempotent by message id)`,
    cause,
    errno: code,
    messageIds: messageIds.filter((id): id is string => id !== undefined),
  });
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

const HINTS: Record<string, string> = {
  EACCES: "no permission: check the owner and mode of the folder and file",
  EPERM: "the operation is not permitted here",
  EROFS: "the file system is read-only",
  ENOTDIR: "a part of the path is a file, not a directory",
  EEXIST: "the path exists and is not a directory",
  EISDIR: "the session file is a directory",
  ENOENT: "the folder cannot be created here",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exhausted",
  EFBIG: "the file is larger than the system allows",
  EIO: "the device reported an I/O error",
  EMFILE: "too many open files: close sessions you no longer use (closeSession)",
  ENFILE: "too many open files in the system",
};

function hintFor(code: string | undefined): string {
  return (code && HINTS[code]) ?? "see the cause for the system's error";
}

function describeCause(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
