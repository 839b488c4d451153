/**
 * fitWindowMiddleware(options): a language-model middleware for `wrapLanguageModel` whose
 * transformParams fits the provider-level prompt (`params.prompt`, LanguageModelV3Prompt) to the
 * model's window before every call, counting `params.tools` against the budget. It works below
 * every AI SDK entry point (generateText, streamText, agents, your own loop), whatever builds the
 * prompt.
 *
 * | concern            | how                                                                                 |
 * |--------------------|-------------------------------------------------------------------------------------|
 * | shape              | prompt-to-stored.ts reads every V3 part (system, text, file, reasoning, tool-call, tool-result with `output`, approvals); stored-to-prompt.ts sends the prompt's own objects back |
 * | O(new) per call    | the SDK rebuilds the prompt each call; PromptMirror hands the fitter the same stored objects for the part it has seen |
 * | budget             | `budget`, or the `model`'s window, or — with neither — the wrapped model's id in the token registry; `params.maxOutputTokens` is reserved when `maxOutputTokens` is not given |
 * | tools              | `params.tools` (function and provider tools) counted; a changed tool list gets its own fitter |
 */
import { getModelInfo } from "@amplifier-ts/tokens";
import { createWindowFitter, fitErrors, type WindowFitter } from "@amplifier-ts/window";
import { MODULE } from "./invalid-argument.js";
import { PromptMirror } from "./prompt-mirror.js";
import { toolDefinitions } from "./provider-tools.js";
import type { LanguageModelMiddleware, ProviderCallOptions, WrappedModel } from "./sdk-types.js";
import { promptFromWindow } from "./stored-to-prompt.js";
import { budgetOptions, checkWindowOptions, type WindowOptions } from "./window-options.js";

/** Fitters kept at once (one per model, output reserve and tool list); the least recently used goes. */
const MAX_FITTERS = 8;

export function fitWindowMiddleware(options: WindowOptions = {}): LanguageModelMiddleware {
  checkWindowOptions(options, "fitWindowMiddleware(options)");
  const mirror = new PromptMirror();
  const fitters = new Map<string, WindowFitter>();
  const fitterFor = (params: ProviderCallOptions, wrapped: WrappedModel) => {
    const tools = toolDefinitions(params.tools);
    const model = options.model ?? (options.budget === undefined ? registeredModel(wrapped) : undefined);
    const maxOutputTokens = options.maxOutputTokens ?? params.maxOutputTokens;
    const key = JSON.stringify([model, maxOutputTokens, tools]);
    let fitter = fitters.get(key);
    if (fitter === undefined) {
      fitter = createWindowFitter({ ...budgetOptions({ ...options, model, maxOutputTokens }), tools, format: "amplifier" });
      if (fitters.size >= MAX_FITTERS) fitters.delete(fitters.keys().next().value as string);
    } else fitters.delete(key);
    fitters.set(key, fitter);
    return fitter;
  };
  return {
    specificationVersion: "v3",
    async transformParams({ params, model }) {
      const fitter = fitterFor(params, model);
      const mirrored = mirror.mirror(params.prompt, "params.prompt");
      const fitted = await fitter.fitAsync(mirrored.messages, { report: true });
      const prompt = promptFromWindow(fitted.messages, mirrored, params.prompt);
      options.onReport?.({ source: "middleware", messagesIn: params.prompt.length, messagesOut: prompt.length, report: fitted.report });
      const same = prompt.length === params.prompt.length && prompt.every((m, i) => m === params.prompt[i]);
      return same ? params : { ...params, prompt };
    },
  };
}

function registeredModel(wrapped: WrappedModel): string {
  const id = wrapped.modelId;
  if (getModelInfo(id)) return id;
  throw fitErrors.create("NO_BUDGET", `fitWindowMiddleware: the wrapped model "${id}" is not in the token registry, so its window is unknown; pass { budget } (tokens a request may use) or { model } (a registered model to count as)`, {
    module: MODULE,
    path: "fitWindowMiddleware(options)",
    expected: "{ budget } or { model }, or a wrapped model the registry knows",
    given: id,
  });
}
