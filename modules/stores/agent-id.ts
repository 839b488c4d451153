import type { HistoryScope } from "@amplifier-ts/contracts";
import { AGENT_ID_PATTERN, DEFAULT_AGENT_ID, createError } from "@amplifier-ts/contracts";

/**
 * The agent a HistoryStore call addresses (HistoryStore contract, version 2): the `agentId` of its
 * scope argument, or DEFAULT_AGENT_ID when the call names none. Agent ids follow the session-id
 * rules (session-id.ts) because they become folder names (JSONL), key parts (Redis) and column
 * values (PostgreSQL).
 *
 * | given | result |
 * |---|---|
 * | `undefined`, `{}`, `{ agentId: undefined }` | `"default"` |
 * | `{ agentId: "planner" }` | `"planner"` |
 * | a scope that is not an object | INVALID_ARGUMENT (`path: "scope"`) |
 * | an agent id outside the alphabet | INVALID_AGENT_ID (`path: "scope.agentId"`) |
 */
export function agentIdOf(scope: HistoryScope | undefined, module = "stores"): string {
  if (scope === undefined) return DEFAULT_AGENT_ID;
  if (typeof scope !== "object" || scope === null || Array.isArray(scope)) {
    throw createError("INVALID_ARGUMENT", "A HistoryStore scope must be an object", { module, path: "scope", expected: "{ agentId?: string }", given: scope });
  }
  return scope.agentId === undefined ? DEFAULT_AGENT_ID : assertAgentId(scope.agentId, module, "scope.agentId");
}

export function isValidAgentId(value: unknown): value is string {
  return typeof value === "string" && AGENT_ID_PATTERN.test(value);
}

/** Throws INVALID_AGENT_ID naming the broken rule; returns the id otherwise. */
export function assertAgentId(value: unknown, module = "stores", path = "agentId"): string {
  if (isValidAgentId(value)) return value;
  throw createError("INVALID_AGENT_ID", `Invalid agent id: ${brokenRule(value)}`, {
    module,
    path,
    expected: "1-128 characters of [A-Za-z0-9._-], not starting with a dot, without '..'",
    given: value,
  });
}

function brokenRule(value: unknown): string {
  if (typeof value !== "string") return `an agent id is a string, not ${value === null ? "null" : typeof value}`;
  if (value.length === 0) return "it is empty";
  if (value.length > 128) return `it is ${value.length} characters long (at most 128)`;
  if (value.startsWith(".")) return "it starts with a dot";
  if (value.includes("..")) return "it contains '..'";
  const bad = [...value].find((ch) => !/[A-Za-z0-9._-]/.test(ch)) ?? "";
  return `it contains the character ${JSON.stringify(bad)}`;
}

/** A key for maps over (agent, session): "/" is in neither alphabet, so distinct pairs never meet. */
export function agentSessionKey(agentId: string, sessionId: string): string {
  return `${agentId}/${sessionId}`;
}
