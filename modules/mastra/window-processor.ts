/**
 * `new WindowProcessor(options)`: a Mastra input processor (Agent `inputProcessors`, the slot of
 * Mastra's TokenLimiter) that fits the messages of an agent call to the model's window with the
 * amplifier-ts window engine: under the budget (the instructions and the tools counted), every tool
 * call kept with its result, the cut moved seldom so the prompt prefix stays cache-stable.
 *
 * One fitter lives in the processor and is kept across calls: a conversation that only grew costs
 * O(new messages) to fit. Kept messages are Mastra's own objects; a message the engine shortened (a
 * long tool result truncated) or kept only in part is a copy with the same id.
 */
import type { MastraMessageV2 } from "@mastra/core/agent";
import type { InputProcessor } from "@mastra/core/processors";
import { createError } from "@amplifier-ts/contracts";
import { createWindowFitter, type FitOptions } from "@amplifier-ts/window";
import { mastraMessageOf, piecesOf, writeBack, type MastraPart, type ModelMessage, type ModelPart, type Piece } from "./mastra-messages.js";

export interface WindowProcessorOptions extends Omit<FitOptions, "format" | "system"> {
  /**
   * The agent's instructions, counted as the system message at the head of every request. Mastra
   * 0.x hands an input processor the conversation without them; give them here so the budget holds.
   */
  instructions?: string;
  /** The processor's name in Mastra's traces; default "amplifier-window". */
  name?: string;
}

export class WindowProcessor implements InputProcessor {
  readonly name: string;
  readonly #fitter: ReturnType<typeof createWindowFitter>;
  readonly #instructions: ModelMessage | undefined;
  /** The pieces of the last call's messages, by position and content: a grown conversation converts only its new messages. */
  #pieces = new Map<string, Piece[]>();
  #generated = 0;

  constructor(options: WindowProcessorOptions) {
    if (options === null || typeof options !== "object") throw createError("INVALID_ARGUMENT", `WindowProcessor: options must be an object ({ model } or { budget }), got ${options === null ? "null" : typeof options}`);
    const { instructions, name, ...fit } = options;
    if (instructions !== undefined && typeof instructions !== "string") throw createError("INVALID_ARGUMENT", `WindowProcessor: instructions must be the agent's instructions as a string, got ${typeof instructions}`);
    if (name !== undefined && (typeof name !== "string" || name === "")) throw createError("INVALID_ARGUMENT", "WindowProcessor: name must be a non-empty string");
    this.name = name ?? "amplifier-window";
    this.#fitter = createWindowFitter({ ...fit, format: "ai-sdk" });
    this.#instructions = instructions ? { role: "system", content: instructions } : undefined;
  }

  async processInput(args: Parameters<InputProcessor["processInput"]>[0]): Promise<MastraMessageV2[]> {
    const messages = args.messages;
    const pieces = this.#convert(messages);
    const input: ModelMessage[] = this.#instructions ? [this.#instructions] : [];
    for (const list of pieces) for (const piece of list) input.push(piece.message);
    const window = (await this.#fitter.fitAsync(input)) as ModelMessage[];
    return redated(this.#mapBack(messages, pieces, window));
  }

  #convert(messages: MastraMessageV2[]): Piece[][] {
    const next = new Map<string, Piece[]>();
    const all = messages.map((message, index) => {
      const key = `${index}\u0000${message.role}\u0000${JSON.stringify(message.content.parts)}`;
      const pieces = this.#pieces.get(key) ?? piecesOf(message, index);
      next.set(key, pieces);
      return pieces;
    });
    this.#pieces = next;
    return all;
  }

  /** The window (model messages) as Mastra messages: the same objects where nothing changed. */
  #mapBack(messages: MastraMessageV2[], pieces: Piece[][], window: ModelMessage[]): MastraMessageV2[] {
    const byMessage = new Map<ModelMessage, Piece>();
    const flat = pieces.flat();
    flat.forEach((piece) => byMessage.set(piece.message, piece));
    // Kept pieces with what the fitter made of them (the same message, or a shortened copy).
    const kept = new Map<Piece, ModelMessage>();
    const out: (number | MastraMessageV2)[] = [];
    let position = 0;
    for (const item of window) {
      if (item === this.#instructions) continue;
      const piece = byMessage.get(item) ?? sourceOf(item, flat, position);
      if (piece === undefined) {
        out.push(mastraMessageOf(item, `amplifier-window-${++this.#generated}`));
        continue;
      }
      kept.set(piece, item);
      position = flat.indexOf(piece) + 1;
      if (out[out.length - 1] !== piece.owner) out.push(piece.owner);
    }
    return out.map((entry) => (typeof entry === "number" ? rebuild(messages[entry]!, pieces[entry]!, kept) : entry));
  }
}

/**
 * Mastra 0.24 dates the messages a call is given 1 ms apart from the moment it converts them, so a
 * long conversation is dated up to one millisecond per message into the future — while the messages
 * of the call's own steps (the tool call, its result) are dated `new Date()`, and Mastra keeps its
 * list sorted by date: those land among the conversation's newest messages instead of after them
 * (measured without this processor too: a turn's tool call sent before the last user message, the
 * model asked again). When the window reaches into the future, its messages are dated just before
 * now, 1 ms apart in window order — the messages are the call's own objects, Mastra's copies of
 * the app's input, and only their date changes.
 */
function redated(window: MastraMessageV2[]): MastraMessageV2[] {
  const now = Date.now();
  if (!window.some((m) => m.createdAt instanceof Date && m.createdAt.getTime() >= now)) return window;
  window.forEach((m, i) => (m.createdAt = new Date(now - window.length + i)));
  return window;
}

/** The piece a changed window item came from: the next one of its role (and tool calls) not yet passed. */
function sourceOf(item: ModelMessage, flat: Piece[], from: number): Piece | undefined {
  const ids = callIds(item.content);
  for (let i = from; i < flat.length; i++) {
    const piece = flat[i]!;
    if (piece.message.role !== item.role) continue;
    if (ids.length === 0 || callIds(piece.message.content).some((id) => ids.includes(id))) return piece;
  }
  return undefined;
}

function callIds(content: ModelMessage["content"]): string[] {
  return typeof content === "string" ? [] : content.flatMap((p) => (p.type === "tool-call" || p.type === "tool-result" ? [p.toolCallId] : []));
}

/**
 * A Mastra message from its kept pieces: itself when every piece was kept unchanged, else a copy
 * holding the parts that survived (rewritten where the fitter shortened them); a tool invocation
 * survives only with its call and, when it has one, its result.
 */
function rebuild(message: MastraMessageV2, pieces: Piece[], kept: Map<Piece, ModelMessage>): MastraMessageV2 {
  if (pieces.every((piece) => kept.get(piece) === piece.message)) return message;
  // For each Mastra part: what the window holds of it, by piece role (call side, result side).
  const calls = new Map<number, ModelPart>();
  const results = new Map<number, ModelPart>();
  for (const piece of pieces) {
    const item = kept.get(piece);
    if (item === undefined) continue;
    const side = piece.message.role === "tool" ? results : calls;
    for (const [part, modelPart] of survivors(piece, item)) side.set(part, modelPart);
  }
  const parts: MastraPart[] = [];
  const original = message.content.parts;
  const present = (index: number): boolean => {
    const part = original[index]!;
    if (part.type === "tool-invocation") return calls.has(index) && (part.toolInvocation.state !== "result" || results.has(index));
    return calls.has(index);
  };
  original.forEach((part, index) => {
    const referenced = pieces.some((piece) => piece.parts.includes(index));
    if (!referenced) {
      // A step mark or a source: kept when the next part the model sees is kept.
      const next = original.findIndex((_, j) => j > index && pieces.some((piece) => piece.parts.includes(j)));
      if (next !== -1 && present(next) && parts.length > 0) parts.push(part);
      return;
    }
    if (!present(index)) return;
    let rewritten = writeBack(part, calls.get(index)!);
    if (results.has(index)) rewritten = writeBack(rewritten, results.get(index)!);
    parts.push(rewritten);
  });
  const invocations = parts.flatMap((p) => (p.type === "tool-invocation" ? [p.toolInvocation] : []));
  const texts = parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
  const content: MastraMessageV2["content"] = { ...message.content, parts };
  if (message.content.toolInvocations !== undefined) content.toolInvocations = invocations;
  if (message.content.content !== undefined) content.content = texts.join("\n");
  return { ...message, content };
}

/** The Mastra part index behind each model part the window kept of a piece (matched by call id, else by order within its type). */
function survivors(piece: Piece, item: ModelMessage): [number, ModelPart][] {
  const before = typeof piece.message.content === "string" ? [] : piece.message.content;
  const after: ModelPart[] = typeof item.content === "string" ? [{ type: "text", text: item.content }] : item.content;
  if (item === piece.message) return before.map((p, j) => [piece.parts[j]!, p]);
  const used = new Set<number>();
  const found: [number, ModelPart][] = [];
  for (const part of after) {
    const j = before.findIndex((b, k) => !used.has(k) && b.type === part.type && (!("toolCallId" in b) || b.toolCallId === (part as { toolCallId?: string }).toolCallId));
    if (j === -1) continue;
    used.add(j);
    found.push([piece.parts[j]!, part]);
  }
  return found;
}
