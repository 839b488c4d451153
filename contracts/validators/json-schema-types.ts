import { z } from "zod";
import { isDateTime } from "./date-time.js";

/**
 * zod builders for the JSON Schema keywords our schemas use, where zod's defaults mean something
 * else. Each one accepts exactly what the emitted JSON Schema (draft-07) accepts, and carries the
 * keyword as metadata so `z.toJSONSchema` writes it.
 *
 * A custom issue's message is the "expected" text of the AmplifierError (see format-issues.ts).
 */

/**
 * `"type": "integer"`. Not `z.number().int()`: zod 4 limits that to safe integers, while JSON
 * Schema accepts any whole number (1e20 included).
 */
export function jsonInteger(bounds: { minimum?: number; exclusiveMinimum?: number } = {}) {
  let schema = z.number();
  if (bounds.minimum !== undefined) schema = schema.min(bounds.minimum);
  if (bounds.exclusiveMinimum !== undefined) schema = schema.gt(bounds.exclusiveMinimum);
  // JSON Schema says `integer` where zod can only refine a number: the metadata puts it back.
  return schema.refine(Number.isInteger, { error: "an integer" }).meta({ type: "integer" });
}

/** `"type": "string", "minLength": 1` (code points and UTF-16 units agree on "at least one"). */
export const nonEmptyString = z.string().min(1);

/**
 * `"type": "object"` with no further keywords: any plain object, not an array, not null.
 * Typed `{ [k: string]: unknown }` like json-schema-to-typescript's output.
 */
export const jsonObject = z.record(z.string(), z.unknown());

/** `"type": "string", "format": "date-time"` as ajv-formats checks it. */
export const dateTimeString = z
  .string()
  .refine(isDateTime, { error: "an RFC 3339 date-time with a time zone, e.g. 2024-05-01T12:00:00Z" })
  .meta({ format: "date-time" });
