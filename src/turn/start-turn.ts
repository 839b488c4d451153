import type { CoordinatorContract, Message } from "@amplifier-ts/contracts";
import { createError, isContextManager } from "@amplifier-ts/contracts";

/** One prompt of a hand-written loop, from `startTurn` to `complete`. */
export interface Turn {
  readonly prompt: string;
  /**
   * The hooks' ephemeral injections for this prompt: pass them to every window of the turn
   * (`getMessagesForRequest(…, { extraMessages: turn.extraMessages })`); they are never stored.
   */
  readonly extraMessages: Message[];
  /** Emits `prompt:complete` with the final answer (the memory recorder files it as agent_response). */
  complete(response: string): Promise<void>;
}

export interface StartTurnOptions {
  /** Carried in `prompt:submit` / `prompt:complete`. */
  runId?: string;
}

/**
 * The start of a prompt in an orchestrator loop, as amplifier-core's orchestrators do it:
 *
 * | step | what happens |
 * |---|---|
 * | `prompt:submit` { prompt } | hooks run; their result is applied (processHookResult: user messages, injections, ask_user) |
 * | a hook denied | PROMPT_DENIED with the reason — nothing was added to the history |
 * | otherwise | the user message is added to the mounted context; ephemeral injections are handed back in `extraMessages` |
 *
 * With `runTool` for each tool call and `turn.complete(answer)` at the end, a loop emits the
 * standard events that hooks (the memory recorder among them) listen to.
 */
export async function startTurn(coordinator: CoordinatorContract, prompt: string, options: StartTurnOptions = {}): Promise<Turn> {
  if (typeof prompt !== "string") {
    throw createError("INVALID_ARGUMENT", "startTurn() needs the prompt as a string", { path: "startTurn.prompt", expected: "a string", given: prompt });
  }
  const context = coordinator.get("context");
  if (!isContextManager(context)) throw createError("NO_CONTEXT_MOUNTED", "startTurn() adds the prompt to the mounted context manager", { expected: "a context manager mounted at the context point" });
  const run = options.runId === undefined ? {} : { runId: options.runId };

  const submitted = await coordinator.hooks.emit("prompt:submit", { prompt, ...run });
  const outcome = await coordinator.processHookResult(submitted, "prompt:submit", submitted.decidedBy ?? "startTurn");
  if (outcome.action === "deny") {
    throw createError("PROMPT_DENIED", `the prompt was denied: ${outcome.reason ?? "no reason given"}`, {
      event: "prompt:submit",
      ...(submitted.decidedBy === undefined ? {} : { hook: submitted.decidedBy }),
      reason: outcome.reason,
    });
  }
  await context.addMessage({ role: "user", content: prompt, ...(options.runId === undefined ? {} : { metadata: { runId: options.runId } }) });
  return {
    prompt,
    extraMessages: coordinator.takeEphemeralInjections(),
    complete: async (response) => void (await coordinator.hooks.emit("prompt:complete", { prompt, response, ...run })),
  };
}
