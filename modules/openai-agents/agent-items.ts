import type { AgentInputItem } from "@openai/agents-core";
import { sessionError } from "./session-errors.js";

/**
 * What the session needs to know about an AgentInputItem (@openai/agents-core's protocol), in one
 * place: its kind for counting and pairing, and whether it can be stored as JSON.
 *
 * | kind | items | in the window |
 * |---|---|---|
 * | `user` | `{ role: "user" }` | a user turn (a cut point) |
 * | `system` | `{ role: "system" }` | a turn note: conversation, kept in stored order with its turn |
 * | `assistant` | `{ role: "assistant" }`, `reasoning`, `hosted_tool_call`, `unknown`, a call without a call id | part of the model's answer; consecutive ones form one assistant message |
 * | `compaction` | `{ type: "compaction" }` | the summary of everything before it: the Runner sends the history from the latest one on, so the window does too, and keeps it first |
 * | `call` | a type of CALL_TYPES with a `callId` (`call_id` on tool search) | a tool call of that answer |
 * | `result` | a type of RESULT_TYPES with a call id | the result of the call with that id |
 *
 * A reasoning item belongs to the answer it precedes, so it is never separated from the calls
 * and text after it; a call and its results are one unit of the window (never split).
 */
export type ItemKind = "user" | "system" | "assistant" | "call" | "result" | "compaction";

/** Each call item type and the type of its result. */
export const CALL_TYPES: Readonly<Record<string, string>> = Object.freeze({
  function_call: "function_call_result",
  computer_call: "computer_call_result",
  shell_call: "shell_call_output",
  apply_patch_call: "apply_patch_call_output",
  program: "program_output",
  tool_search_call: "tool_search_output",
});

const RESULT_TYPES: ReadonlySet<string> = new Set(Object.values(CALL_TYPES));

export type ItemRecord = Readonly<Record<string, unknown>>;

export function kindOf(item: AgentInputItem): ItemKind {
  const record = item as ItemRecord;
  const type = record.type;
  if (type === undefined || type === "message") {
    if (record.role === "user") return "user";
    if (record.role === "system") return "system";
    return "assistant";
  }
  if (type === "compaction") return "compaction";
  if (typeof type !== "string") return "assistant";
  if (callIdOf(item) === undefined) return "assistant";
  if (type in CALL_TYPES) return "call";
  if (RESULT_TYPES.has(type)) return "result";
  return "assistant";
}

/** The call id a call or result item carries (`callId`; `call_id` on tool search items). */
export function callIdOf(item: AgentInputItem): string | undefined {
  const record = item as ItemRecord;
  const id = record.callId ?? record.call_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * Refuses what the session cannot keep exactly: a non-object, an object that names neither a
 * `type` nor a `role`, or a value JSON would change (a function, a BigInt, a class instance
 * such as a Date or a Uint8Array, a non-finite number, a cycle). The Runner hands the session
 * plain JSON values (it turns binary data into data URLs first), so a refusal means a caller
 * passed something the SDK would not.
 */
export function assertStorableItems(items: unknown, path = "items"): asserts items is AgentInputItem[] {
  if (!Array.isArray(items)) throw sessionError("INVALID_ITEM", "addItems() takes an array of AgentInputItem", { path, expected: "an array of AgentInputItem objects", given: items });
  items.forEach((item, index) => {
    const at = `${path}[${index}]`;
    if (!isPlainObject(item)) throw sessionError("INVALID_ITEM", `${at} is not an item object`, { path: at, expected: "an AgentInputItem object", given: item, index });
    if (typeof item.type !== "string" && typeof item.role !== "string") {
      throw sessionError("INVALID_ITEM", `${at} names neither a type nor a role`, { path: at, expected: "an AgentInputItem: { role, content } or { type, … }", given: item, index });
    }
    const problem = jsonProblem(item, at, new Set());
    if (problem) throw sessionError("INVALID_ITEM", `${problem.path} cannot be stored as JSON: ${problem.expected}`, { path: problem.path, expected: "JSON values only: strings, finite numbers, booleans, null, arrays and plain objects", given: problem.given, index });
  });
}

function jsonProblem(value: unknown, path: string, seen: Set<object>): { path: string; expected: string; given: unknown } | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : { path, expected: "a finite number", given: value };
    case "object": {
      if (value === null) return undefined;
      if (seen.has(value)) return { path, expected: "no cycles", given: "[circular]" };
      if (!Array.isArray(value) && !isPlainObject(value)) return { path, expected: "a plain object", given: Object.prototype.toString.call(value) };
      seen.add(value);
      const entries = Array.isArray(value) ? value.map((v, i) => [`${path}[${i}]`, v] as const) : Object.entries(value).map(([k, v]) => [`${path}.${k}`, v] as const);
      for (const [at, entry] of entries) {
        if (entry === undefined && Array.isArray(value)) return { path: at, expected: "no undefined in arrays (JSON turns it into null)", given: undefined };
        const problem = jsonProblem(entry, at, seen);
        if (problem) return problem;
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return { path, expected: `a JSON value, not a ${typeof value}`, given: typeof value };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
