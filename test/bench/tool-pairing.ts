/**
 * The bench's own check of what a provider rejects in a window (used for both our windows and
 * LangChain's, so the comparison is the same rule on both):
 * - OpenAI style: an assistant message with tool_calls must be followed, before any other
 *   message, by one role "tool" message per call id; a tool message anywhere else is an orphan.
 * - Anthropic style: an assistant message with tool_use blocks must be followed by a user message
 *   whose tool_result blocks answer every id; a tool_result must answer the assistant message
 *   right before it.
 * - After the system messages, the first message is a user message (when the window has any).
 */
import type { Message } from "../../contracts/generated/message.js";
import { checkWindowInvariants, type WindowCheckCounter } from "../../testing/window-invariants.js";

/**
 * Everything wrong with one window: the contract's checker (every invariant of contracts/WINDOW.md,
 * against the history it was assembled from) and this file's provider-rejection check.
 */
export function windowProblems(history: readonly Message[], window: readonly Message[], budget: number, counter: WindowCheckCounter): string[] {
  return [...checkWindowInvariants(history, window, { budget, counter }), ...toolPairingProblems(window).map((p) => `provider-pairing: ${p}`)];
}

/**
 * The windows an agent loop requested at model calls, each checked against the history as it
 * stood then (`history` + `stream[0..at]`): how many were invalid and the first problem seen.
 */
export function checkWindowsAt(
  history: readonly Message[],
  stream: readonly Message[],
  windows: readonly { at: number; window: readonly Message[] }[],
  budget: number,
  counter: WindowCheckCounter,
): { invalid: number; firstProblem: string | undefined } {
  let invalid = 0;
  let firstProblem: string | undefined;
  for (const { at, window } of windows) {
    const problems = windowProblems([...history, ...stream.slice(0, at + 1)], window, budget, counter);
    if (problems.length) {
      invalid++;
      firstProblem ??= problems[0];
    }
  }
  return { invalid, firstProblem };
}

export function toolPairingProblems(window: readonly Message[]): string[] {
  const problems: string[] = [];
  let i = 0;
  while (i < window.length && (window[i]!.role === "system" || window[i]!.role === "developer")) i++;
  if (i < window.length && window[i]!.role !== "user") problems.push(`first non-system message is ${window[i]!.role}`);

  for (let k = 0; k < window.length; k++) {
    const m = window[k]!;
    if (m.role === "assistant" && m.tool_calls?.length) {
      const pending = new Set(m.tool_calls.map((c) => c.id));
      let j = k + 1;
      while (j < window.length && window[j]!.role === "tool") {
        const id = window[j]!.tool_call_id;
        if (id === undefined || !pending.delete(id)) problems.push(`tool result ${id} at ${j} does not answer the call at ${k}`);
        j++;
      }
      for (const id of pending) problems.push(`call ${id} at ${k} has no result`);
      k = j - 1;
      continue;
    }
    if (m.role === "tool") {
      problems.push(`tool result ${m.tool_call_id} at ${k} has no call right before it`);
      continue;
    }
    const uses = toolUseIds(m);
    if (m.role === "assistant" && uses.length) {
      const next = window[k + 1];
      const answered = new Set(next?.role === "user" ? toolResultIds(next) : []);
      for (const id of uses) if (!answered.has(id)) problems.push(`tool_use ${id} at ${k} has no tool_result in the next message`);
      continue;
    }
    const results = toolResultIds(m);
    if (results.length) {
      const previous = window[k - 1];
      const asked = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
      for (const id of results) if (!asked.has(id)) problems.push(`tool_result ${id} at ${k} answers no tool_use of the message before it`);
    }
  }
  return problems;
}

function toolUseIds(m: Message): string[] {
  if (!Array.isArray(m.content)) return [];
  const ids: string[] = [];
  for (const b of m.content) if (b.type === "tool_use") ids.push(b.id);
  return ids;
}

function toolResultIds(m: Message): string[] {
  if (!Array.isArray(m.content)) return [];
  const ids: string[] = [];
  for (const b of m.content) if (b.type === "tool_result") ids.push(b.tool_use_id);
  return ids;
}
