/**
 * Tool pairing, both styles: OpenAI (`assistant.tool_calls[].id` ↔ `tool.tool_call_id`) and
 * Anthropic (`tool_use.id` ↔ `tool_result.tool_use_id`).
 *
 * Pairing in the history (as amplifier-ts's contracts/WINDOW.md defines it): a result answers the
 * most recent earlier call of its id, if that call has no result for that id yet; otherwise it is
 * an orphan. The history (instructions already taken out) is split into units that a window
 * keeps or drops whole, so no window holds a call without its results or a result without its call:
 *
 * | unit       | what it holds                                                                      |
 * |------------|------------------------------------------------------------------------------------|
 * | call unit  | an assistant message with calls, then every message carrying its results, in stored |
 * |            | order (wherever they were stored), then synthetic results for calls that have none  |
 * | plain unit | any other message; a user turn (a user message with content besides tool results)   |
 * |            | opens a turn; so does a hook turn note stored right before it (see recent-turns-window.js) |
 *
 * Repairs, in the window only (the history is never changed), each marked in `metadata.window`:
 * - a call with no result (a crash mid-tool) gets a synthetic result
 *   (`synthetic: "interrupted-tool-call"`): one `tool` message per OpenAI call, one user message
 *   of `tool_result` blocks (`is_error: true`) for the Anthropic calls;
 * - an orphan result is left out: a `tool` message is dropped; a user message loses its orphan
 *   `tool_result` blocks (`repaired: { orphanResults }`) and is dropped if nothing else is left.
 */

export const INTERRUPTED = "[tool call interrupted: no result was recorded]";

/**
 * @param {readonly object[]} messages stored messages without the instructions, in stored order
 * @returns {{ units: Unit[], repaired: { interruptedCalls: string[], orphanResults: string[] } }}
 *
 * @typedef {{ messages: object[], stored: object[], userStart: boolean, pinned: boolean, note: boolean }} Unit
 *   `messages`: what goes into a window (stored objects, repaired copies, synthetic results);
 *   `stored`: the history messages it stands for; `userStart`: it is a user turn;
 *   `pinned`: it holds a critical message; `note`: a non-critical hook turn note (conversation).
 */
export function splitIntoUnits(messages) {
  const { resultsOf, carriers, strip, answered } = pairResults(messages);
  const units = [];
  const repaired = { interruptedCalls: [], orphanResults: [] };

  messages.forEach((message, i) => {
    if (carriers.has(i)) return; // goes with its call
    const calls = callsOf(message);
    if (calls.length > 0) {
      const results = resultsOf.get(i) ?? [];
      const missing = calls.filter((call) => !answered.has(`${i}:${call.id}`));
      repaired.interruptedCalls.push(...missing.map((call) => call.id));
      const inWindow = [message, ...results.map((j) => withoutBlocks(messages[j], strip.get(j), repaired))];
      units.push(makeUnit([...inWindow, ...interruptedResults(missing)], [message, ...results.map((j) => messages[j])], false));
      return;
    }
    if (resultIdsOf(message).length > 0) {
      // Nothing but orphans here (a message with a paired result is a carrier).
      const kept = withoutBlocks(message, new Set(resultIdsOf(message)), repaired);
      if (kept !== undefined) units.push(makeUnit([kept], [message], isUserTurn(kept)));
      return;
    }
    units.push(makeUnit([message], [message], isUserTurn(message)));
  });
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

/** A user message with something besides tool results: what a turn starts with. */
export function isUserTurn(message) {
  if (message.role !== "user") return false;
  return !Array.isArray(message.content) || message.content.some((block) => block.type !== "tool_result");
}

/**
 * Which call each result answers. A message carrying results is attached to the call of its
 * first paired result; results in it that are orphans (or, rarely, answer another call) are
 * stripped from it in the window, and such another call then counts as unanswered.
 */
function pairResults(messages) {
  const latestCall = new Map(); // call id → index of the most recent message making that call
  const answered = new Set(); // `${callIndex}:${id}`
  const resultsOf = new Map(); // call index → indexes of its carriers, stored order
  const carriers = new Set();
  const strip = new Map(); // carrier index → ids to strip
  messages.forEach((message, i) => {
    let target;
    for (const id of resultIdsOf(message)) {
      const call = latestCall.get(id);
      const pairs = call !== undefined && !answered.has(`${call}:${id}`) && (target === undefined || target === call);
      if (pairs) {
        answered.add(`${call}:${id}`);
        target = call;
      } else {
        strip.set(i, (strip.get(i) ?? new Set()).add(id));
      }
    }
    if (target !== undefined) {
      carriers.add(i);
      resultsOf.set(target, [...(resultsOf.get(target) ?? []), i]);
    }
    for (const call of callsOf(message)) latestCall.set(call.id, i);
  });
  return { resultsOf, carriers, strip, answered };
}

/** The message without the given result ids (marked repaired), undefined when nothing is left. */
function withoutBlocks(message, ids, repaired) {
  if (ids === undefined || ids.size === 0) return message;
  repaired.orphanResults.push(...ids);
  if (message.role === "tool") return undefined;
  const content = message.content.filter((block) => block.type !== "tool_result" || !ids.has(block.tool_use_id));
  if (content.length === 0) return undefined;
  const removed = message.content.length - content.length;
  return { ...message, content, metadata: { ...message.metadata, window: { repaired: { orphanResults: removed } } } };
}

function makeUnit(messages, stored, userStart) {
  const pinned = stored.some((m) => m.metadata?.critical === true);
  // A hook's turn note (system/developer, metadata.scope "turn"; never critical here): conversation that may open a turn.
  const note = !pinned && stored.length === 1 && (stored[0].role === "system" || stored[0].role === "developer") && stored[0].metadata?.scope === "turn";
  return { messages, stored, userStart, pinned, note };
}

/** One tool message per OpenAI call; one user message of tool_result blocks for the Anthropic calls. */
function interruptedResults(missing) {
  const mark = (id) => ({ id: `window:interrupted:${id}`, source: "amplifier-module-context-example", window: { synthetic: "interrupted-tool-call" } });
  const out = missing.filter((c) => c.style === "openai").map((c) => ({ role: "tool", tool_call_id: c.id, content: INTERRUPTED, metadata: mark(c.id) }));
  const anthropic = missing.filter((c) => c.style === "anthropic");
  if (anthropic.length > 0) {
    out.push({
      role: "user",
      content: anthropic.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: INTERRUPTED, is_error: true })),
      metadata: mark(anthropic.map((c) => c.id).join("+")),
    });
  }
  return out;
}
