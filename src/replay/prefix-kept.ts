import type { Message } from "@amplifier-ts/contracts";

interface Counter {
  countMessage(m: Message): number;
}

/**
 * Share (0–1) of the previous window's message tokens that start the next window unchanged: the
 * part of the request a provider's prompt cache can reuse. Messages are compared by id and sent
 * content (role, content, tool_calls, tool_call_id, name); metadata is not sent, so it is ignored.
 */
export function prefixKept(previous: Message[], next: Message[], counter: Counter): number {
  let total = 0;
  for (const m of previous) total += counter.countMessage(m);
  if (total === 0) return 1;
  let kept = 0;
  const n = Math.min(previous.length, next.length);
  for (let i = 0; i < n; i++) {
    const a = previous[i]!;
    const b = next[i]!;
    if (!sameSentMessage(a, b)) break;
    kept += counter.countMessage(a);
  }
  return kept / total;
}

export function sameSentMessage(a: Message, b: Message): boolean {
  if (a.metadata?.id !== b.metadata?.id || a.role !== b.role) return false;
  if (a.tool_call_id !== b.tool_call_id || a.name !== b.name) return false;
  if (a.content !== b.content && JSON.stringify(a.content) !== JSON.stringify(b.content)) return false;
  return a.tool_calls === b.tool_calls || JSON.stringify(a.tool_calls) === JSON.stringify(b.tool_calls);
}
