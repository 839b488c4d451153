/**
 * The history a provider that compacts on its server expects (Anthropic compact_20260112, OpenAI
 * Responses context_management compaction), and the report of its compactions.
 *
 * | rule | semantics |
 * |------|-----------|
 * | when | config `providerCompaction: "on"`, or `"auto"` (the default) and the provider's getInfo() lists the `server-compaction` capability |
 * | no compaction block stored yet | the window is the incremental assembler's over the stored history (the provider compacts once its threshold is passed); config `strategies` are not run — compacting is the provider's |
 * | a stored message holds a `compaction` block | the window is the instructions stored before the newest such message, a user placeholder (the window opens with a user turn), then that message and everything after it: what the provider already compacted is never sent, summarized or truncated again. Anthropic's adapter leaves the placeholder out with everything before the block (the API drops it); OpenAI receives it as a user item before the compaction item (as `/responses/compact`'s output has user messages before its item) |
 * | budget | the window engine still enforces it over that tail (a provider threshold below the budget never needs it) |
 * | cost | O(new messages) per request; O(tail) when a new compaction moves the start |
 *
 * A provider answer that carries a compaction block is reported as `context:post_compact` with
 * `source: "provider"` (see compactionReport).
 */
import type { AmplifierEvents, BilledUsage, Message } from "@amplifier-ts/contracts";
import { idOf, isInstruction } from "@amplifier-ts/contracts";
import type { TokenCounter } from "@amplifier-ts/tokens";
import { WindowAssembler } from "@amplifier-ts/window";

export const PROVIDER_COMPACTED_TEXT = "[The earlier conversation was compacted by the provider; its compaction follows.]";

export type ProviderCompactionSetting = "auto" | "on" | "off";

/** Whether `message` carries a provider's compaction state. */
export function hasCompaction(message: Message): boolean {
  const content = message.content;
  return Array.isArray(content) && content.some((block) => (block as { type?: unknown } | null)?.type === "compaction");
}

export interface CompactedTail {
  readonly assembler: WindowAssembler;
  /** The stored index of the newest message with a compaction block. */
  readonly from: number;
  /** What the assembler holds: instructions, placeholder, history from `from` on (a window record's history). */
  readonly items: readonly Message[];
}

/** Follows the stored history; the assembler over what a server-compacting provider expects. */
export class ProviderCompactedTail {
  #source: readonly Message[] | undefined;
  #seen = 0;
  #from = -1;
  #tail: { assembler: WindowAssembler; items: Message[] } | undefined;

  /** The tail's assembler, up to date with `history`; undefined while no message holds a compaction block. */
  follow(history: readonly Message[]): CompactedTail | undefined {
    let from = this.#from;
    if (history !== this.#source || history.length < this.#seen) {
      // A new history (replaced, resumed): find its newest compaction from the end.
      this.#source = history;
      this.#tail = undefined;
      from = -1;
      for (let i = history.length - 1; i >= 0; i--) {
        if (hasCompaction(history[i]!)) {
          from = i;
          break;
        }
      }
    } else {
      for (let i = this.#seen; i < history.length; i++) if (hasCompaction(history[i]!)) from = i;
    }
    if (from < 0) {
      this.#seen = history.length;
      this.#from = -1;
      return undefined;
    }
    if (from !== this.#from || this.#tail === undefined) {
      const items: Message[] = [...history.slice(0, from).filter(isInstruction), placeholderFor(history[from]!, from), ...history.slice(from)];
      this.#tail = { assembler: new WindowAssembler(items), items };
    } else {
      for (let i = this.#seen; i < history.length; i++) {
        this.#tail.items.push(history[i]!);
        this.#tail.assembler.append(history[i]!);
      }
    }
    this.#from = from;
    this.#seen = history.length;
    return { assembler: this.#tail.assembler, from, items: this.#tail.items };
  }
}

/**
 * `context:post_compact` for a provider answer that carries a compaction block, from the window
 * the provider compacted (the request just sent) — the same event as the engine's, its fields
 * where they exist:
 *
 * | field        | value |
 * |--------------|-------|
 * | messageCount | what the provider holds now: the request's instructions + the compaction message |
 * | tokens       | the compaction's output as billed (Anthropic `usage.iterations`), else the compaction blocks as counted |
 * | removed      | the request's conversation messages the compaction stands for |
 * | summarized   | the same (the provider summarized them) |
 * | truncated    | 0 |
 * | strategies   | [`provider:<provider>`] |
 * | durationMs   | the provider call's (compaction and answer together), 0 when unknown |
 * | source       | "provider" |
 */
export function compactionReport(input: {
  provider: string;
  answer: Message;
  window: readonly Message[] | undefined;
  usage: BilledUsage | undefined;
  counter: TokenCounter;
  durationMs: number | undefined;
}): AmplifierEvents["context:post_compact"] {
  const window = input.window ?? [];
  const instructions = window.filter(isInstruction).length;
  const conversation = window.length - instructions;
  const billed = input.usage?.compaction?.outputTokens;
  const blocks = Array.isArray(input.answer.content) ? input.answer.content.filter((block) => block.type === "compaction") : [];
  const tokens = billed ?? input.counter.countMessage({ role: "assistant", content: blocks });
  return {
    messageCount: instructions + 1,
    tokens,
    removed: conversation,
    truncated: 0,
    summarized: conversation,
    strategies: [`provider:${input.provider}`],
    durationMs: input.durationMs ?? 0,
    source: "provider",
  };
}

function placeholderFor(message: Message, index: number): Message {
  return { role: "user", content: PROVIDER_COMPACTED_TEXT, metadata: { id: `provider-compaction:${idOf(message) ?? index}`, source: "context" } };
}
