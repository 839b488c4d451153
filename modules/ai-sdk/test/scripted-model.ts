/**
 * The scripted model behind the fake server in these tests (kept apart from agent-loop.ts so a test
 * can use it without loading @ai-sdk/openai: the README block's default provider must load after
 * the test points OPENAI_BASE_URL at the fake).
 */
import type { Api, Reply } from "../../../test/providers/fake-api-server.js";

/** The scripted model: per turn one round of tool calls (every 4th turn two; every 3rd turn two calls in parallel), then an answer. */
export function scriptedReply(api: Api, body: Record<string, unknown>, index: number): Reply {
  const items = (api === "chat" ? body.messages : body.input) as Record<string, unknown>[];
  const lastUser = items.findLastIndex((m) => m.role === "user");
  const userText = JSON.stringify(items[lastUser]?.content ?? "");
  const turn = Number(/question (\d+)/.exec(userText)?.[1] ?? -1);
  const after = items.slice(lastUser + 1);
  // Rounds so far in this turn: assistant messages with calls (Chat), runs of function_call items (Responses).
  const rounds = api === "chat" ? after.filter((m) => m.role === "assistant" && m.tool_calls).length : after.filter((m, i) => m.type === "function_call" && after[i - 1]?.type !== "function_call").length;
  if (rounds >= (turn % 4 === 3 ? 2 : 1)) return { text: `Answer ${turn}: the figures agree within ${turn % 11} units.` };
  const parallel = turn % 3 === 0 ? 2 : 1;
  return {
    text: rounds === 0 ? "Let me look that up." : "Checking one more source.",
    toolCalls: Array.from({ length: parallel }, (_, k) => ({ id: `call_${index}_${k}`, name: k === 0 ? "search" : "fetch_page", arguments: k === 0 ? { query: `topic ${turn}` } : { url: `https://example.org/${turn}` } })),
  };
}
