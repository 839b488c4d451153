/**
 * The message shapes the fit-window scenario hands to `fitWindow` / `createWindowFitter`, as a
 * user of each framework holds them: ours (amplifier Message[]), AI SDK `ModelMessage[]` and
 * LangChain `BaseMessage[]` — converted with the same converters the peers get (peer-messages.ts
 * toModel, langchain-trim.ts toLangChain), the history once, each new message inside the timed turn.
 *
 * Every native message given is tagged with the piece of ours it stands for (peer-messages.ts
 * Piece), so a window maps back to our messages for the same checks as every other row:
 * - a message given and returned as the same object → the piece's stand-in (a shallow copy: the
 *   invariant checker wants copies, and fitWindow returns the caller's objects by design);
 * - a tagged message returned as a new object (the fitter changed it: a truncated result) → the
 *   stand-in with the returned text, marked `truncated` only when the text carries the
 *   `[… N chars truncated …]` marker (else it is reported as changed without a mark);
 * - an untagged message (the fitter made it: a result for a call that crashed, a placeholder) →
 *   ours, marked `synthetic` (the bench cannot tell it from a stored one otherwise; whether it
 *   answers a call whose real result exists is still checked).
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ModelMessage } from "ai";
import type { ContentBlock, Message } from "../../contracts/generated/message.js";
import type { WindowFormat } from "../../modules/window/index.js";
import { toLangChain } from "./langchain-trim.js";
import { PIECE_TAG, pushAsModel, text, type Piece } from "./peer-messages.js";

export interface Shape {
  readonly name: string;
  readonly format: WindowFormat;
  /** Converts the history once; `add` converts and appends one message (timed with the turn). */
  open(history: readonly Message[]): OpenedShape;
}

export interface OpenedShape {
  /** The caller's array: grows by `add`, handed to fit() as it is. */
  readonly messages: unknown[];
  add(message: Message): void;
  toOurs(window: readonly unknown[]): Message[];
}

const TAG = PIECE_TAG;
const MARKER = /\[… \d+ chars truncated …\]/;

/** Our messages themselves: the fitter's own shape (no conversion). */
export const oursShape: Shape = {
  name: "amplifier Message[]",
  format: "amplifier",
  open(history) {
    const messages: Message[] = history.slice();
    const given = new Set<unknown>(messages);
    return {
      messages,
      add(m) {
        messages.push(m);
        given.add(m);
      },
      toOurs: (window) => (window as Message[]).map((m) => (given.has(m) ? { ...m } : m)),
    };
  },
};

export const aiSdkShape: Shape = {
  name: "AI SDK ModelMessage[]",
  format: "ai-sdk",
  open(history) {
    const names = new Map<string, string>();
    const pieces: Piece[] = [];
    const messages: ModelMessage[] = [];
    const given = new Set<unknown>();
    const add = (m: Message) => {
      for (const c of pushAsModel(m, names, pieces, messages)) given.add(c);
    };
    for (const m of history) add(m);
    return {
      messages,
      add,
      toOurs: (window) =>
        mapBack(window as ModelMessage[], {
          pieces,
          given,
          tagOf: (m) => (m.providerOptions?.[TAG] as { piece?: number } | undefined)?.piece,
          textOf: (m) => modelTexts(m),
          synthetic: (m) => modelAsOurs(m),
        }),
    };
  },
};

export const langChainShape: Shape = {
  name: "LangChain BaseMessage[]",
  format: "langchain",
  open(history) {
    const pieces: Piece[] = [];
    const byId = new Map<string, number>();
    const messages: BaseMessage[] = [];
    const given = new Set<unknown>();
    const add = (m: Message) => {
      for (const c of toLangChain(m)) {
        byId.set(c.lc.id ?? "", pieces.length);
        const blocks = c.parts > 1 && Array.isArray(c.as.content) ? c.as.content : undefined;
        pieces.push({ origin: c.original, parts: c.parts, ...(blocks ? { blocks } : {}) });
        messages.push(c.lc);
        given.add(c.lc);
      }
    };
    for (const m of history) add(m);
    return {
      messages,
      add,
      toOurs: (window) =>
        mapBack(window as BaseMessage[], {
          pieces,
          given,
          tagOf: (m) => (m.id === undefined ? undefined : byId.get(m.id)),
          textOf: (m) => langChainTexts(m),
          synthetic: (m) => langChainAsOurs(m),
        }),
    };
  },
};

export const SHAPES: readonly Shape[] = [oursShape, aiSdkShape, langChainShape];

interface MapBack<N> {
  pieces: readonly Piece[];
  given: ReadonlySet<unknown>;
  tagOf(native: N): number | undefined;
  textOf(native: N): NativeText;
  /** A message the fitter made, as ours (unmarked; mapBack marks it). */
  synthetic(native: N): Message[];
}

/** A native window as our messages (see the file's comment for the three cases). */
function mapBack<N>(window: readonly N[], how: MapBack<N>): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < window.length; ) {
    const native = window[i]!;
    const tag = how.tagOf(native);
    const first = tag === undefined ? undefined : how.pieces[tag];
    if (first === undefined) {
      for (const m of how.synthetic(native)) pushSynthetic(out, m);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < window.length && how.pieces[how.tagOf(window[j]!) ?? -1]?.origin === first.origin) j++;
    const group = window.slice(i, j);
    const whole = group.length === first.parts || first.blocks === undefined;
    const changed = group.filter((n) => !how.given.has(n));
    let message: Message = whole ? { ...first.origin } : { ...first.origin, content: group.flatMap((n) => how.pieces[how.tagOf(n)!]!.blocks ?? []) };
    for (const n of changed) {
      const body = how.textOf(n);
      message = (whole && group.length === 1 ? thinkingDropped(first.origin, body) : undefined) ?? withText(message, how.pieces[how.tagOf(n)!]!, body);
    }
    if (changed.length && MARKER.test(JSON.stringify(message.content))) message = marked(message, { truncated: { by: "fitWindow (read from the text's marker)" } });
    out.push(message);
    i = j;
  }
  return out;
}

/**
 * A message the fitter made, marked synthetic. A result for an Anthropic-style call (the assistant
 * before it holds tool_use blocks) is a tool_result block of a user message, as our pairing rules
 * want it there; consecutive ones share that message.
 */
function pushSynthetic(out: Message[], m: Message): void {
  if (m.role !== "tool") {
    out.push(marked(m, { synthetic: m.role === "user" ? "omitted-history" : "interrupted-tool-call" }));
    return;
  }
  const previous = out.at(-1);
  const callStyle = previous?.role === "user" && (previous.metadata?.window as { synthetic?: string } | undefined)?.synthetic === "interrupted-tool-call" ? out.at(-2) : previous;
  const anthropic = callStyle?.role === "assistant" && Array.isArray(callStyle.content) && callStyle.content.some((b) => b.type === "tool_use");
  if (!anthropic) {
    out.push(marked(m, { synthetic: "interrupted-tool-call" }));
    return;
  }
  const block: ContentBlock = { type: "tool_result", tool_use_id: m.tool_call_id ?? "", content: typeof m.content === "string" ? m.content : "" };
  if (previous !== callStyle && Array.isArray(previous!.content)) previous!.content.push(block);
  else out.push(marked({ role: "user", content: [block] }, { synthetic: "interrupted-tool-call" }));
}

function marked(m: Message, mark: Record<string, unknown>): Message {
  return { ...m, metadata: { ...m.metadata, window: { ...(m.metadata?.window as Record<string, unknown> | undefined), ...mark } } } as Message;
}

/**
 * `m` with what the fitter changed in one native message: the text of each tool result it carries
 * (by call id), else the message's text.
 */
function withText(m: Message, piece: Piece, body: NativeText): Message {
  if (!Array.isArray(m.content)) return { ...m, content: body.text };
  const mine = new Set((piece.blocks ?? m.content).flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])));
  const results = body.results ?? (mine.size === 1 ? new Map([[[...mine][0]!, body.text]]) : new Map<string, string>());
  let replaced = false;
  const content = m.content.map((b): ContentBlock => {
    const text = b.type === "tool_result" && mine.has(b.tool_use_id) ? results.get(b.tool_use_id) : undefined;
    if (b.type !== "tool_result" || text === undefined) return b;
    replaced = true;
    return { ...b, content: text };
  });
  if (replaced) return { ...m, content };
  // No result replaced: the message's text blocks become one text block (tool_use blocks kept).
  return { ...m, content: [{ type: "text", text: body.text }, ...m.content.filter((b) => b.type !== "text" && b.type !== "thinking")] };
}

/** What a native message says: its text, and each tool result's text by call id when it carries results. */
interface NativeText {
  text: string;
  results?: Map<string, string>;
  /** The native message still carries thinking (undefined: the shape cannot tell). */
  thinking?: boolean;
  /** The tool call ids the native message carries, in order (with `thinking`). */
  calls?: string[];
}

const isThinking = (b: { type?: unknown } | null | undefined) => b?.type === "thinking" || b?.type === "redacted_thinking" || b?.type === "reasoning";

/**
 * An older turn's assistant message the fitter sent without its thinking (the window's
 * `drop-older` policy): the native message has none left and the same text as the stored one. Ours
 * is then the stored message without its thinking blocks, marked as the engine marks it
 * (thinkingDropped), for the checker's changes-marked rule. Undefined otherwise.
 */
function thinkingDropped(origin: Message, body: NativeText): Message | undefined {
  if (origin.role !== "assistant" || !Array.isArray(origin.content) || body.thinking !== false) return undefined;
  const blocks = origin.content.filter((b) => isThinking(b)).length;
  if (blocks === 0 || body.text !== text(origin.content)) return undefined;
  const calls = [...origin.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])), ...(origin.tool_calls ?? []).map((c) => c.id)];
  if (JSON.stringify(body.calls ?? []) !== JSON.stringify(calls)) return undefined;
  return marked({ ...origin, content: origin.content.filter((b) => !isThinking(b)) }, { thinkingDropped: { blocks } });
}

function modelTexts(m: ModelMessage): NativeText {
  if (m.role !== "tool") return { text: modelText(m) };
  return { text: modelText(m), results: new Map(m.content.flatMap((p) => (p.type === "tool-result" ? [[p.toolCallId, outputText(p.output)] as const] : []))) };
}

function modelText(m: ModelMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content
    .map((p) => (p.type === "text" ? p.text : p.type === "tool-result" ? outputText(p.output) : ""))
    .join("");
}

function outputText(output: unknown): string {
  const o = output as { type?: string; value?: unknown };
  return typeof o.value === "string" ? o.value : JSON.stringify(o.value ?? "");
}

function modelAsOurs(m: ModelMessage): Message[] {
  if (m.role === "tool") return m.content.flatMap((p) => (p.type === "tool-result" ? [{ role: "tool" as const, tool_call_id: p.toolCallId, name: p.toolName, content: outputText(p.output) }] : []));
  return [{ role: m.role, content: modelText(m) } as Message];
}

function langChainText(m: BaseMessage): string {
  return typeof m.content === "string" ? m.content : text(m.content as unknown as ContentBlock[]);
}

function langChainTexts(m: BaseMessage): NativeText {
  const body = langChainText(m);
  const callId = (m as { tool_call_id?: string }).tool_call_id;
  const thinking = Array.isArray(m.content) ? (m.content as { type?: unknown }[]).some(isThinking) : false;
  const calls = ((m as { tool_calls?: { id?: string }[] }).tool_calls ?? []).map((c) => c.id ?? "");
  return callId === undefined ? { text: body, thinking, calls } : { text: body, results: new Map([[callId, body]]), thinking, calls };
}

/**
 * A message the fitter made: a real LangChain message, or the message-like plain object
 * (`{ role, content, tool_call_id? }`) it writes when the input held no message of that class.
 */
function langChainAsOurs(m: BaseMessage): Message[] {
  const body = langChainText(m);
  const callId = (m as { tool_call_id?: string }).tool_call_id;
  const role = typeof m.getType === "function" ? (ToolMessage.isInstance(m) ? "tool" : AIMessage.isInstance(m) ? "assistant" : m.getType() === "system" ? "system" : "user") : (m as unknown as { role: string }).role;
  if (role === "tool") return [{ role: "tool", tool_call_id: callId ?? "", content: body }];
  if (role === "assistant" || role === "ai") return [{ role: "assistant", content: body }];
  return [{ role: role === "system" ? "system" : "user", content: body }];
}
