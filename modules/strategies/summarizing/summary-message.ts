/**
 * The message a summarizing strategy puts in a window in place of the messages it summarised.
 *
 * | field              | value                                                         |
 * |--------------------|---------------------------------------------------------------|
 * | role               | `user` — so a window that starts with it still opens with a user turn |
 * | content            | `[Summary of the earlier conversation]` + newline + the summary text |
 * | metadata.id        | `summary-<strategy>-<hash of covers>`: the same covers give the same id |
 * | metadata.summary   | `{ covers, strategy, summarizer }`: the ids of every message it stands for (a previous summary's covers included) |
 * | metadata.source    | `"summary"`                                                    |
 * | metadata.window    | `{ synthetic: "summary" }`: made for the window, not stored (the window checker's `known-messages`) |
 *
 * Place: right after the instructions the window starts with (never before an instruction), ahead
 * of any critical message kept from the old part and of the recent part.
 */
import type { CompactionContext, Summarizer } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import { ExtractiveSummarizer } from "@amplifier-ts/summarizers";
import { summarizeSafely, type SummaryOutcome } from "@amplifier-ts/summarizers";

export const SUMMARY_HEADER = "[Summary of the earlier conversation]";

export interface SummaryOrigin {
  readonly covers: readonly string[];
  /** coversFingerprint() of the covered messages: tells a stale checkpoint (same ids, other messages) apart. */
  readonly fingerprint?: string;
  readonly strategy: string;
  readonly summarizer: string;
}

export function makeSummaryMessage(text: string, origin: SummaryOrigin): Message {
  return Object.freeze({
    role: "user",
    content: `${SUMMARY_HEADER}\n${text}`,
    metadata: {
      id: `summary-${origin.strategy}-${hashIds(origin.covers)}`,
      source: "summary",
      summary: {
        covers: [...origin.covers],
        strategy: origin.strategy,
        summarizer: origin.summarizer,
        ...(origin.fingerprint !== undefined ? { fingerprint: origin.fingerprint } : {}),
      },
      // A window mark (modules/window/window-marks.ts): not a stored message, made for the window.
      window: { synthetic: "summary" },
    },
  });
}

/** The summary text of a summary message (header removed), or undefined for other messages. */
export function summaryTextOf(message: Message | undefined): string | undefined {
  if (!isSummaryMessage(message)) return undefined;
  const content = typeof message.content === "string" ? message.content : (message.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return content.startsWith(SUMMARY_HEADER) ? content.slice(SUMMARY_HEADER.length).replace(/^\n/, "") : content;
}

export function isSummaryMessage(message: Message | undefined): message is Message & { metadata: { summary: { covers: string[] } } } {
  const summary = message?.metadata?.summary;
  return typeof summary === "object" && summary !== null && Array.isArray(summary.covers);
}

/** A hash of the covered messages' role and content, in order. */
export function coversFingerprint(messages: readonly Message[]): string {
  return formatHash(hashState(messages.map(fingerprintText)));
}

/**
 * The fingerprint of `base`'s covered messages followed by `fresh`, from the hash state kept for
 * `base` when it was made here (O(fresh): a checkpoint update hashes only what it adds), else from
 * all `covered` (O(covered)). The new state is kept for `next` once it is made (rememberFingerprint).
 */
export function extendFingerprint(base: Message | undefined, covered: readonly Message[], fresh: readonly Message[]): { fingerprint: string; state: HashState } {
  const start = base === undefined ? undefined : fingerprintStates.get(base);
  const state = start !== undefined && start.n === covered.length ? hashState(fresh.map(fingerprintText), start) : hashState([...covered, ...fresh].map(fingerprintText));
  return { fingerprint: formatHash(state), state };
}

/** Keeps the hash state a checkpoint's fingerprint came from (extendFingerprint starts from it). */
export function rememberFingerprint(checkpoint: Message, state: HashState): void {
  fingerprintStates.set(checkpoint, state);
}

interface HashState {
  readonly h: number;
  readonly n: number;
}
const fingerprintStates = new WeakMap<Message, HashState>();

function fingerprintText(m: Message): string {
  return `${m.role}:${JSON.stringify(m.content ?? null)}:${JSON.stringify(m.tool_calls ?? null)}`;
}

/** FNV-1a over the ids, as 8 hex digits: short, stable across processes. */
function hashIds(ids: readonly string[]): string {
  return formatHash(hashState(ids));
}

function hashState(ids: readonly string[], start: HashState = { h: 0x811c9dc5, n: 0 }): HashState {
  let h = start.h;
  for (const id of ids) {
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x1f, 0x01000193);
  }
  return { h, n: start.n + ids.length };
}

function formatHash(state: HashState): string {
  return `${(state.h >>> 0).toString(16).padStart(8, "0")}-${state.n}`;
}

/**
 * Summarises `fresh` (the old messages no summary covers yet) for a summarizing strategy: the
 * summarizer from the request, else the strategy's, else the offline extractive one; the previous
 * summary's text passed on so it is updated, not stacked; failures reported by summarizeSafely.
 */
export async function summarizeOld(
  strategy: string,
  fresh: readonly Message[],
  previous: Message | undefined,
  context: CompactionContext,
  options: { summarizer: Summarizer | undefined; summaryMaxTokens: number; timeoutMs: number },
  extra: { focus?: string; acceptEmpty?: boolean; background?: { attempt: number; retryInMs?: number }; signal?: AbortSignal } = {},
): Promise<{ summarizer: Summarizer; outcome: SummaryOutcome }> {
  const summarizer = context.summarizer ?? options.summarizer ?? new ExtractiveSummarizer({ counter: context.counter });
  const previousSummary = summaryTextOf(previous);
  const outcome = await summarizeSafely(summarizer, fresh, {
    maxTokens: options.summaryMaxTokens,
    timeoutMs: options.timeoutMs,
    strategy,
    // In the background nothing is dropped: the window's ladder fits the turn meanwhile.
    ...(extra.background ? { background: extra.background } : { dropped: fresh.length }),
    ...(previousSummary !== undefined ? { previousSummary } : {}),
    ...(context.hooks ? { hooks: context.hooks } : {}),
    // A background job has its own signal (close() aborts it), never the request's.
    ...(extra.signal ? { signal: extra.signal } : context.signal ? { signal: context.signal } : {}),
    ...(extra.focus !== undefined ? { focus: extra.focus } : {}),
    ...(extra.acceptEmpty ? { acceptEmpty: true } : {}),
  });
  return { summarizer, outcome };
}
