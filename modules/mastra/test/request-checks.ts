/**
 * What the fake server received, judged independently of the processor: each request's prompt
 * tokens counted from its body (OpenAI Chat Completions: messages + tools) with @amplifier-ts/tokens'
 * counter after @amplifier-ts/adapters read the body — not with the window engine's ledger —, its
 * tool pairs checked, and the share of each request's messages the next one starts with.
 */
import { fromApiTool, fromOpenAIChat, type ChatMessage, type ChatTool } from "@amplifier-ts/adapters";
import { countTokens } from "@amplifier-ts/tokens";

interface ChatBody {
  messages: ChatMessage[];
  tools?: ChatTool[];
}

export function requestTokens(body: Record<string, unknown>, model: string): number {
  const chat = body as unknown as ChatBody;
  return countTokens(fromOpenAIChat(chat.messages), { model, tools: (chat.tools ?? []).map(fromApiTool) });
}

/**
 * The broken tool pairs of one request: an assistant's tool call not answered by the tool messages
 * right after it, or a tool message that answers no call of the assistant message before its run.
 */
export function brokenPairs(body: Record<string, unknown>): string[] {
  const messages = (body as unknown as ChatBody).messages;
  const broken: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === "assistant" && m.tool_calls?.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) answered.add((messages[j] as { tool_call_id: string }).tool_call_id);
      for (const call of m.tool_calls) if (!answered.has(call.id)) broken.push(`messages[${i}]: tool call ${call.id} has no result after it`);
    }
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === "tool") j--;
      const before = messages[j];
      const calls = before?.role === "assistant" ? (before.tool_calls ?? []).map((c) => c.id) : [];
      if (!calls.includes(m.tool_call_id)) broken.push(`messages[${i}]: tool result ${m.tool_call_id} answers no call before it`);
    }
  });
  return broken;
}

/** For each pair of consecutive requests: the share of the first one's messages the second starts with. */
export function prefixShares(bodies: Record<string, unknown>[]): number[] {
  const keys = bodies.map((body) => (body as unknown as ChatBody).messages.map((m) => JSON.stringify(m)));
  const shares: number[] = [];
  for (let i = 1; i < keys.length; i++) {
    const [before, after] = [keys[i - 1]!, keys[i]!];
    let same = 0;
    while (same < before.length && same < after.length && before[same] === after[same]) same++;
    shares.push(same / before.length);
  }
  return shares;
}

/** The tool calls of a request whose name or arguments are not what the model sent under that id. */
export function alteredCalls(body: Record<string, unknown>, made: ReadonlyMap<string, string>): string[] {
  return (body as unknown as ChatBody).messages.flatMap((m, i) =>
    m.role === "assistant" ? (m.tool_calls ?? []).filter((c) => made.get(c.id) !== undefined && JSON.stringify(JSON.parse(c.function.arguments)) !== made.get(c.id)).map((c) => `messages[${i}]: ${c.id} ${c.function.name}(${c.function.arguments.slice(0, 40)})`) : [],
  );
}
