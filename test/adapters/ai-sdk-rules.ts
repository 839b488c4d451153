/**
 * The pairing the AI SDK's providers need (the SDK's own modelMessageSchema checks the shapes):
 * every tool-call part is answered by a tool-result in the tool message right after its
 * assistant message, and every tool-result answers a call of that assistant message.
 */
import type { ModelMessage } from "../../modules/adapters/index.js";

export function aiSdkPairingProblems(messages: readonly ModelMessage[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    const calls = m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId) : [];
    const next = messages[i + 1];
    const answered = next?.role === "tool" ? next.content.map((p) => p.toolCallId) : [];
    if (calls.length > 0 && [...calls].sort().join() !== [...answered].sort().join()) problems.push(`messages[${i}]: calls ${calls.join(", ")} answered by ${answered.join(", ") || "nothing"}`);
    if (m.role === "tool") {
      const previous = messages[i - 1];
      const made = previous?.role === "assistant" && Array.isArray(previous.content) ? previous.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId) : [];
      for (const part of m.content) if (!made.includes(part.toolCallId)) problems.push(`messages[${i}]: result ${part.toolCallId} answers no call of the message before`);
    }
  });
  return problems;
}
