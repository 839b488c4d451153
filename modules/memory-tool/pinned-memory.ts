import type { CoordinatorContract, MemoryTreeStore } from "@amplifier-ts/contracts";
import { byCodePoint } from "./memory-format.js";
import { displayPath } from "./memory-paths.js";

/** The folder whose files are pinned: `/memories/pinned/…`. */
export const PINNED_DIR = "pinned";
/** Injections are capped by the coordinator at 64 KiB; pinned text stays under it with room for the framing. */
const MAX_PINNED_BYTES = 60 * 1024;

export interface PinnedOptions {
  store: MemoryTreeStore;
  tree: () => string;
  /** Share of the model's context window the pinned files may take. */
  share: number;
  /** Most tokens of pinned files whatever the window. */
  maxTokens: number;
  /** The model's context window and a token counter for its model, when known. */
  window?: () => Promise<{ contextWindow?: number; countText?: (text: string) => number }>;
}

export interface PinnedMessage {
  /** The instruction text, or undefined when nothing is pinned. */
  content: string | undefined;
  /** Files offered whole, in path order. */
  included: string[];
  /** Files left out because the budget was spent (their paths are named in the text). */
  omitted: string[];
  /** Tokens of the text (counted for the model, else its UTF-8 bytes, an upper bound). */
  tokens: number;
  budget: number;
}

/**
 * Pinned memory: the files the agent keeps under `/memories/pinned/` are what it wants in front
 * of it on every request — the current plan, the user's standing preferences. Before each prompt
 * (`prompt:submit`) they are offered to the window as one ephemeral system message (an
 * instruction for the next request, never stored in the history, so a changed file is seen at the
 * next prompt and nothing accumulates), emitted by the coordinator as `context:include`.
 *
 * Budget: `min(maxTokens, floor(share × context window))` tokens (the window of the first mounted
 * provider; maxTokens alone when none is known), and at most 60 KiB (the coordinator's
 * injection limit is 64 KiB). Files go in whole, in path order, while they fit; a file that does
 * not fit is named with its size so the agent can view it — never cut in the middle.
 */
export async function pinnedMessage(options: PinnedOptions): Promise<PinnedMessage> {
  const info = (await options.window?.().catch(() => undefined)) ?? {};
  const budget = Math.max(0, Math.min(options.maxTokens, info.contextWindow ? Math.floor(options.share * info.contextWindow) : options.maxTokens));
  const count = info.countText ?? ((text: string) => Buffer.byteLength(text, "utf8"));
  const tree = options.tree();
  const files = [...(await options.store.list(tree, PINNED_DIR))].sort((a, b) => byCodePoint(a.path, b.path));
  if (files.length === 0) return { content: undefined, included: [], omitted: [], tokens: 0, budget };
  const head = "Pinned memory (files you keep under /memories/pinned/ with the memory tool; edit them with it to change what is shown here):";
  const parts: string[] = [head];
  const included: string[] = [];
  const omitted: string[] = [];
  for (const file of files) {
    const text = await options.store.read(tree, file.path);
    if (text === undefined) continue;
    const part = `<memory_file path="${displayPath(file.path)}">\n${text}\n</memory_file>`;
    const next = [...parts, part].join("\n\n");
    if (count(next) <= budget && Buffer.byteLength(next, "utf8") <= MAX_PINNED_BYTES) {
      parts.push(part);
      included.push(displayPath(file.path));
    } else omitted.push(displayPath(file.path));
  }
  if (omitted.length > 0) parts.push(`Not shown (over the pinned budget of ${budget} tokens; view them with the memory tool): ${omitted.join(", ")}`);
  if (included.length === 0 && omitted.length === 0) return { content: undefined, included, omitted, tokens: 0, budget };
  const content = parts.join("\n\n");
  return { content, included, omitted, tokens: count(content), budget };
}

/** The context window and a counter for the first mounted provider's model (tokens capability), when there are. */
export function providerWindow(coordinator: CoordinatorContract): () => Promise<{ contextWindow?: number; countText?: (text: string) => number }> {
  return async () => {
    const providers = Object.values(coordinator.get("providers"));
    const info = providers[0] ? await providers[0].getInfo() : undefined;
    const contextWindow = info?.defaults?.context_window;
    const model = info?.defaults?.model;
    const tokens = coordinator.getCapability<{ getTokenCounter?: (model: string) => { countText(text: string): number } }>("tokens");
    let countText: ((text: string) => number) | undefined;
    if (model !== undefined && tokens?.getTokenCounter) {
      try {
        const counter = tokens.getTokenCounter(model);
        countText = (text) => counter.countText(text);
      } catch {
        // A model the registry does not know: bytes, an upper bound, keep the budget safe.
      }
    }
    return { ...(typeof contextWindow === "number" ? { contextWindow } : {}), ...(countText ? { countText } : {}) };
  };
}
