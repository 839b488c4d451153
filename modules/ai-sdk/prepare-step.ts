/**
 * fitWindowPrepareStep(options): a `prepareStep` for generateText, streamText and ToolLoopAgent
 * that sends, at every step, the step's messages fitted to the model's window. The AI SDK passes
 * prepareStep the whole conversation so far (the caller's messages and every step's response
 * messages, the same objects from step to step), so the fitter kept inside pays O(new messages) a
 * step and keeps the cut where it was until the window fills again (a cache-stable prefix).
 *
 * The returned `messages` replace the prompt of this step only: the SDK's own history (the next
 * step's input, `response.messages`) stays whole.
 *
 * `system`: prepareStep's messages do not carry the `system` given to generateText, yet the
 * request does — give the same string here and it is counted (and never dropped).
 * `tools`: the same ToolSet as generateText's; its definitions count against the budget.
 */
import { createWindowFitter } from "@amplifier-ts/window";
import type { ModelMessage, ToolSet } from "ai";
import { invalidArgument } from "./invalid-argument.js";
import { budgetOptions, checkWindowOptions, type WindowOptions } from "./window-options.js";

export interface PrepareStepWindowOptions extends WindowOptions {
  /** The `tools` given to generateText / streamText / the agent; counted against the budget. */
  tools?: ToolSet;
  /** The `system` given to generateText / the agent's `instructions` as a string; counted and kept. */
  system?: string;
}

/** What the helper returns: a function assignable to every `prepareStep` (any tool set). */
export type WindowPrepareStep = (step: { messages: ModelMessage[]; stepNumber: number }) => Promise<{ messages: ModelMessage[] }>;

export function fitWindowPrepareStep(options: PrepareStepWindowOptions): WindowPrepareStep {
  const path = "fitWindowPrepareStep(options)";
  checkWindowOptions(options, path);
  if (options.system !== undefined && typeof options.system !== "string") throw invalidArgument(`${path}.system`, "the system prompt given to generateText, as a string", options.system);
  if (options.tools !== undefined && (typeof options.tools !== "object" || options.tools === null || Array.isArray(options.tools))) throw invalidArgument(`${path}.tools`, "the ToolSet given to generateText (a record of tools)", options.tools);
  // Without model or budget: WINDOW_FIT/NO_BUDGET, now (a guessed budget is the failure this prevents).
  const fitter = createWindowFitter({ ...budgetOptions(options), tools: options.tools, format: "ai-sdk" });
  // One object for the whole run, so the fitter sees the same first message at every step.
  const system: ModelMessage | undefined = options.system === undefined ? undefined : { role: "system", content: options.system };
  const onReport = options.onReport;
  return async ({ messages, stepNumber }) => {
    const given = system ? [system, ...messages] : messages;
    const fitted = await fitter.fitAsync(given, { report: true });
    const sent = system ? fitted.messages.filter((m) => m !== system) : fitted.messages;
    onReport?.({ source: "prepareStep", stepNumber, messagesIn: messages.length, messagesOut: sent.length, report: fitted.report });
    return { messages: sent };
  };
}
