/**
 * Completed steps kept out of the chat history (Steamship memory seed: `AgentContext.completed_steps`
 * vs `ChatHistory`).
 *
 * The chat history holds the two-way conversation only: the user's prompt and the agent's final
 * answer. The steps the agent takes to get there — its tool calls and their results — are added
 * with `metadata.ephemeral: true` and the run's `runId`: they are in every window DURING the run
 * (the model must see what its tools returned), never persisted, and dropped by `clearRun(runId)`
 * when the run ends. The next prompt's window therefore carries no stale scratch work.
 *
 *   node dist/examples/ephemeral-steps.js
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import type { Message } from "amplifier-ts";
import { createSession, startTurn } from "amplifier-ts";
import { ScriptedProvider } from "./scripted-provider.js";

export interface EphemeralStepsResult {
  /** The windows the model was sent during the run (steps visible). */
  windowsDuringRun: Message[][];
  /** The stored conversation after the run (prompt + final answer only). */
  historyAfterRun: Message[];
  /** The window a next prompt would start from. */
  nextWindow: Message[];
}

const LOOKUP: Record<string, string> = { "INV-2041": "status: paid, total: 1,250.00 EUR, paid on 2024-05-02" };

export async function runEphemeralStepsExample(prompt = "Is invoice INV-2041 paid?"): Promise<EphemeralStepsResult> {
  const session = await createSession({ session: { context: { module: "context-simple" } } });
  const provider = new ScriptedProvider([
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_invoice", arguments: '{"id":"INV-2041"}' } }] },
    (request) => ({ role: "assistant", content: `Yes — ${String(request.messages.at(-1)?.content)}.` }),
  ]);
  const { context } = session;
  const windowsDuringRun: Message[][] = [];
  try {
    await context.addMessage({ role: "system", content: "You answer questions about invoices." });
    // prompt:submit (hooks may deny or inject), then the prompt joins the conversation.
    const turn = await startTurn(session.coordinator, prompt);
    const runId = randomUUID();
    // A step: in the window during the run, never stored, dropped by clearRun.
    const step = (message: Message): Message => ({ ...message, metadata: { ...message.metadata, ephemeral: true, runId } });
    for (;;) {
      const window = await context.getMessagesForRequest(undefined, provider, { extraMessages: turn.extraMessages });
      windowsDuringRun.push(window);
      const { message } = await provider.complete({ messages: window });
      if (!message.tool_calls?.length) {
        await context.addMessage(message); // the final answer joins the conversation
        await turn.complete(typeof message.content === "string" ? message.content : "");
        break;
      }
      await context.addMessage(step(message));
      for (const call of message.tool_calls) {
        const args = JSON.parse(call.function.arguments) as { id: string };
        await context.addMessage(step({ role: "tool", tool_call_id: call.id, name: call.function.name, content: LOOKUP[args.id] ?? "not found" }));
      }
    }
    await context.clearRun?.(runId);
    return {
      windowsDuringRun,
      historyAfterRun: await context.getMessages(),
      nextWindow: await context.getMessagesForRequest(undefined, provider),
    };
  } finally {
    await session.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = await runEphemeralStepsExample();
  for (const m of result.historyAfterRun) console.log(`${m.role.padEnd(9)} ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
}
