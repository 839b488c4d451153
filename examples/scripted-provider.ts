import type { Message } from "amplifier-ts";
import type { ProviderInfo } from "amplifier-ts";
import type { ChatRequest, ChatResponse, Provider } from "amplifier-ts";

/**
 * One scripted reply: an assistant message, or a function of the request that builds one (so a
 * reply can quote the tool result it was given, as a real model would).
 */
export type ScriptedReply = Message | ((request: ChatRequest) => Message);

export interface ScriptedProviderOptions {
  id?: string;
  model?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

/**
 * A Provider that replays scripted assistant messages, one per complete() call, in order: a
 * deterministic stand-in for a model in examples and tests. It records every request it was
 * sent (`requests`), so a test can look at the windows the orchestrator built. Running past the
 * end of the script is an error, never a silent empty answer.
 */
export class ScriptedProvider implements Provider {
  readonly requests: ChatRequest[] = [];
  readonly #script: readonly ScriptedReply[];
  readonly #info: ProviderInfo;
  #next = 0;

  constructor(script: readonly ScriptedReply[], options: ScriptedProviderOptions = {}) {
    if (!Array.isArray(script) || script.length === 0) throw new TypeError("ScriptedProvider needs a non-empty script of assistant replies");
    this.#script = [...script];
    this.#info = {
      id: options.id ?? "scripted",
      display_name: "Scripted replies",
      defaults: {
        model: options.model ?? "gpt-4o",
        context_window: options.contextWindow ?? 128_000,
        max_output_tokens: options.maxOutputTokens ?? 4_096,
      },
    };
  }

  getInfo(): ProviderInfo {
    return structuredClone(this.#info);
  }

  /** How many scripted replies are left. */
  get remaining(): number {
    return this.#script.length - this.#next;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(structuredClone(request));
    const step = this.#script[this.#next];
    if (step === undefined) {
      throw new Error(`ScriptedProvider "${this.#info.id}": the script has no reply left (all ${this.#script.length} used)`);
    }
    this.#next++;
    const message = typeof step === "function" ? step(request) : structuredClone(step);
    if (message.role !== "assistant") throw new Error(`ScriptedProvider "${this.#info.id}": scripted reply ${this.#next} is not an assistant message`);
    return { message, usage: { outputTokens: approximateOutputTokens(message) } };
  }
}

/** Usage is informational here; a rough figure is enough for a scripted model. */
function approximateOutputTokens(message: Message): number {
  const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
  return Math.ceil((text.length + JSON.stringify(message.tool_calls ?? []).length) / 4);
}
