/**
 * TEMPORARY stand-in for `createWindowFitter` of @amplifier-ts/window (issue 27, being built by
 * another session), with the API every integration codes against. Deleted when the real one lands
 * on main: the package then imports it from @amplifier-ts/window.
 */
import type { CompactionStrategy, Message, ToolDefinition } from "@amplifier-ts/contracts";
import { getTokenCounter } from "@amplifier-ts/tokens";
import { resolveBudget, WindowAssembler, type WindowReport } from "@amplifier-ts/window";
import { asSchema } from "ai";
import { PromptMirror } from "./prompt-mirror.js";
import type { ProviderMessage } from "./sdk-types.js";
import { promptFromWindow } from "./stored-to-prompt.js";

export type WindowFormat = "amplifier" | "openai-chat" | "openai-responses" | "anthropic" | "ai-sdk" | "langchain";
export interface FitOptions {
  model?: string;
  budget?: number;
  maxOutputTokens?: number;
  safetyMargin?: number;
  tools?: readonly unknown[] | Record<string, unknown>;
  strategies?: readonly CompactionStrategy[];
  format?: WindowFormat;
}
export type FitReport = WindowReport;
export interface WindowFitter {
  fit<T>(messages: readonly T[]): T[];
  fit<T>(messages: readonly T[], options: { report: true }): { messages: T[]; report: FitReport };
  fitAsync<T>(messages: readonly T[], options: { report: true }): Promise<{ messages: T[]; report: FitReport }>;
}

export function createWindowFitter(options: FitOptions): WindowFitter {
  const counter = getTokenCounter(options.model ?? "gpt-4o");
  const budget = resolveBudget({ tokenBudget: options.budget, model: options.model, ...(options.safetyMargin !== undefined ? { safetyMargin: options.safetyMargin } : {}) });
  const tools = toolsOf(options.tools);
  const assembler = new WindowAssembler();
  const mirror = new PromptMirror("shim");
  const fitStored = (messages: readonly Message[]) => {
    const shared = assembler.sharedPrefix(messages);
    if (shared < assembler.length) assembler.reset(messages);
    else for (const m of messages.slice(shared)) assembler.append(m);
    return assembler.assemble({ budget, counter, tools });
  };
  function fit<T>(messages: readonly T[], o?: { report: true }): T[] | { messages: T[]; report: FitReport } {
    let out: T[];
    let report: FitReport;
    if (options.format === "ai-sdk") {
      const mirrored = mirror.mirror(messages);
      const window = fitStored(mirrored.messages);
      out = promptFromWindow(window.messages, mirrored, messages as readonly ProviderMessage[]) as T[];
      report = window.report;
    } else {
      const window = fitStored(messages as readonly Message[]);
      out = window.messages as T[];
      report = window.report;
    }
    return o?.report ? { messages: out, report } : out;
  }
  return {
    fit: fit as WindowFitter["fit"],
    fitAsync: async (messages, o) => fit(messages, o) as never,
  };
}

function toolsOf(tools: FitOptions["tools"]): ToolDefinition[] {
  if (tools === undefined) return [];
  if (Array.isArray(tools)) return tools as ToolDefinition[];
  return Object.entries(tools).map(([name, tool]) => {
    const t = tool as { description?: string; inputSchema?: unknown };
    const schema = t.inputSchema === undefined ? undefined : asSchema(t.inputSchema as never).jsonSchema;
    const parameters = schema && typeof (schema as { then?: unknown }).then !== "function" ? (schema as Record<string, unknown>) : {};
    return { type: "function", function: { name, ...(t.description ? { description: t.description } : {}), parameters } };
  });
}
