import type { ReadOptions } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/** A validated page: `end` is exclusive and already clamped to the session's length. */
export interface Page {
  start: number;
  end: number;
}

/**
 * Turns `read(sessionId, { offset, limit })` into a slice of a list of `length` messages.
 * offset and limit are non-negative safe integers; an offset past the end is an empty page (not an
 * error), so a caller paging with a fixed step simply stops when a page comes back empty.
 */
export function resolvePage(options: ReadOptions | undefined, length: number, module: string): Page {
  if (options === undefined) return { start: 0, end: length };
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw createError("INVALID_ARGUMENT", "read() options must be an object", {
      module,
      path: "options",
      expected: "{ offset?, limit? }",
      given: options,
    });
  }
  const offset = checkCount(options.offset, "offset", module) ?? 0;
  const limit = checkCount(options.limit, "limit", module);
  const start = Math.min(offset, length);
  const end = limit === undefined ? length : Math.min(length, start + limit);
  return { start, end };
}

function checkCount(value: unknown, name: string, module: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw createError("INVALID_ARGUMENT", `read() ${name} must be a non-negative integer`, {
    module,
    path: `options.${name}`,
    expected: "a non-negative integer",
    given: value,
  });
}

/** runId arguments of clearRun: a non-empty string. */
export function assertRunId(value: unknown, module: string): string {
  if (typeof value === "string" && value.length > 0) return value;
  throw createError("INVALID_ARGUMENT", "clearRun() needs a run id", {
    module,
    path: "runId",
    expected: "a non-empty string",
    given: value,
  });
}
