/**
 * Tool pairing, both styles: OpenAI (`assistant.tool_calls[].id` ↔ `tool.tool_call_id`) and
 * Anthropic (`tool_use.id` ↔ `tool_result.tool_use_id`).
 *
 * The history (system messages already taken out) is split into units that are kept or dropped
 * whole, so no window ever holds a call without its results or a result without its call:
 *
 * | unit                      | what it holds                                                           |
 * |---------------------------|-------------------------------------------------------------------------|
 * | call unit                 | an assistant message with calls + the results that directly follow it   |
 * | plain unit                | any other message                                                        |
 *
 * Repairs (in the window only; the history is never changed):
 * - a call with no result directly after it (a crash mid-tool) gets a synthetic "interrupted"
 *   result, so the provider accepts the request;
 * - a result that does not answer the call right before it is an orphan and is left out (from a
 *   user message that also carries text, only the orphan `tool_result` blocks are left out).
 */

export const INTERRUPTED = "[interrupted: this tool call has no recorded result]";

/**
 * @param {readonly object[]} messages non-system messages in stored order
 * @returns {{ units: Unit[], repaired: { interruptedCalls: string[], orphanResults: string[] } }}
 *
 * @typedef {{ messages: object[], stored: object[], userStart: boolean, pinned: boolean }} Unit
 *   `messages`: what goes into a window (stored objects, stripped copies or synthetic results);
 *   `stored`: the history messages the unit stands for; `userStart`: it opens a turn (a user
 *   message that is not only tool results); `pinned`: it holds a critical message.
 */
export function splitIntoUnits(messages) {
  const units = [];
  const repaired = { interruptedCalls: [], orphanResults: [] };
  let i = 0;
  while (i < messages.length) {
    const message = messages[i];
    const calls = callsOf(message);
    if (calls.length > 0) {
      const pending = new Map(calls.map((call) => [call.id, call.style]));
      const unit = [message];
      let j = i + 1;
      for (; j < messages.length && pending.size > 0; j++) {
        const ids = resultIdsOf(messages[j]);
        if (ids.length === 0 || !ids.every((id) => pending.has(id)) || new Set(ids).size !== ids.length) break;
        unit.push(messages[j]);
        for (const id of ids) pending.delete(id);
      }
      const stored = unit.slice();
      if (pending.size > 0) {
        repaired.interruptedCalls.push(...pending.keys());
        unit.push(...interruptedResults(pending));
      }
      units.push(makeUnit(unit, stored, false));
      i = j;
      continue;
    }
    const results = resultIdsOf(message);
    if (results.length > 0) {
      repaired.orphanResults.push(...results);
      const kept = message.role === "user" && Array.isArray(message.content) ? message.content.filter((b) => b.type !== "tool_result") : [];
      if (kept.length > 0) units.push(makeUnit([{ ...message, content: kept }], [message], true));
      i++;
      continue;
    }
    units.push(makeUnit([message], [message], message.role === "user"));
    i++;
  }
  return { units, repaired };
}

/** Calls an assistant message makes, in order, with the style its results must have. */
export function callsOf(message) {
  if (message.role !== "assistant") return [];
  const calls = (message.tool_calls ?? []).map((call) => ({ id: call.id, style: "openai" }));
  if (Array.isArray(message.content)) {
    for (const block of message.content) if (block.type === "tool_use") calls.push({ id: block.id, style: "anthropic" });
  }
  return calls;
}

/** Ids of the calls a message answers: a tool message's tool_call_id, a user message's tool_result blocks. */
export function resultIdsOf(message) {
  if (message.role === "tool") return [message.tool_call_id];
  if (message.role === "user" && Array.isArray(message.content)) {
    return message.content.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id);
  }
  return [];
}

function makeUnit(messages, stored, userStart) {
  return { messages, stored, userStart, pinned: stored.some((m) => m.metadata?.critical === true) };
}

/** One tool message per OpenAI call; one user message of tool_result blocks for the Anthropic calls. */
function interruptedResults(pending) {
  const synthetic = { source: "amplifier-module-context-example", repair: "interrupted" };
  const out = [];
  const anthropic = [];
  for (const [id, style] of pending) {
    if (style === "openai") out.push({ role: "tool", tool_call_id: id, content: INTERRUPTED, metadata: { ...synthetic } });
    else anthropic.push({ type: "tool_result", tool_use_id: id, content: INTERRUPTED, is_error: true });
  }
  if (anthropic.length > 0) out.push({ role: "user", content: anthropic, metadata: { ...synthetic } });
  return out;
}
