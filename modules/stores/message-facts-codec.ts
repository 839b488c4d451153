/**
 * MessageFacts (contracts) as a compact JSON array, the form a store keeps beside a message so a
 * resume can plan its window without parsing the message: a JSONL session's sidecar index
 * (session-index-file.ts) and a PostgreSQL row's `facts` column.
 *
 *     ["role", flags, id|null, runId|null, calls|0, resultIds|0]
 *
 * flags: 1 critical, 2 note (`metadata.scope: "turn"`), 4 turn content. calls: `[[id, name,
 * 0 openai | 1 anthropic], …]`; 0 when none, as resultIds.
 */
import type { Message, MessageFacts } from "@amplifier-ts/contracts";

const ROLES = new Set<string>(["system", "developer", "user", "assistant", "tool"]);
/** The empty list of calls or result ids every message without any shares (facts are read-only). */
const NONE: readonly never[] = Object.freeze([]);

/** The six elements of the compact form. */
export const FACTS_LENGTH = 6;

export function encodeFacts(f: MessageFacts): unknown[] {
  const flags = (f.critical ? 1 : 0) | (f.note ? 2 : 0) | (f.turnContent ? 4 : 0);
  const calls = f.calls.length === 0 ? 0 : f.calls.map((c) => [c.id, c.name, c.style === "openai" ? 0 : 1]);
  return [f.role, flags, f.id ?? null, f.runId ?? null, calls, f.resultIds.length === 0 ? 0 : f.resultIds];
}

/** The facts held by `row` from element `at` on (FACTS_LENGTH elements), or undefined when they are not well formed. */
export function decodeFacts(row: readonly unknown[], at = 0): MessageFacts | undefined {
  // Read in place (no slice, shared empty lists): a resume decodes one per stored message.
  const role = row[at];
  const flags = row[at + 1];
  const id = row[at + 2];
  const runId = row[at + 3];
  const calls = row[at + 4];
  const resultIds = row[at + 5];
  if (typeof role !== "string" || !ROLES.has(role) || typeof flags !== "number") return undefined;
  if ((id !== null && typeof id !== "string") || (runId !== null && typeof runId !== "string")) return undefined;
  const callRefs = calls === 0 ? NONE : Array.isArray(calls) ? calls.map(callOf) : undefined;
  if (callRefs === undefined || (callRefs as readonly unknown[]).includes(undefined)) return undefined;
  const results = resultIds === 0 ? NONE : Array.isArray(resultIds) && resultIds.every((r) => typeof r === "string") ? (resultIds as string[]) : undefined;
  if (results === undefined) return undefined;
  return {
    role: role as Message["role"],
    critical: (flags & 1) !== 0,
    note: (flags & 2) !== 0,
    turnContent: (flags & 4) !== 0,
    calls: callRefs as MessageFacts["calls"],
    resultIds: results,
    id: (id as string | null) ?? undefined,
    runId: (runId as string | null) ?? undefined,
  };
}

function callOf(call: unknown): MessageFacts["calls"][number] | undefined {
  if (!Array.isArray(call) || typeof call[0] !== "string" || typeof call[1] !== "string" || (call[2] !== 0 && call[2] !== 1)) return undefined;
  return { id: call[0], name: call[1], style: call[2] === 0 ? "openai" : "anthropic" };
}
