/**
 * OpenAI Responses input items (`input` of POST /responses; or `{ instructions?, input }`). An
 * assistant turn — consecutive `compaction`, `reasoning`, assistant `message` and `function_call` items — is
 * one stored assistant message (fromOpenAIResponses reads it so); every other item is one message.
 * The last group stays open while the array may still grow it (a new function_call after it).
 * A truncated `function_call_output` is the caller's item with `output` replaced; a truncated
 * prompt the caller's item with `content` replaced; a made-up result is a `function_call_output`.
 * Built-in tools' items (web_search_call, file_search_call, code_interpreter_call, …) belong to the
 * assistant turn and are counted as their JSON. The calls a caller answers pair with their own
 * output kind, read as a function call and its output (CALLS, OUTPUTS): custom_tool_call,
 * computer_call (its screenshot counted as an image), local_shell_call (answered by an output whose
 * `id` is the call's call_id), shell_call, apply_patch_call, and mcp_approval_request (answered by
 * an mcp_approval_response naming its id). A made-up result for an interrupted call is an output of
 * the call's own kind (outputFor). Other item types are refused by the adapter
 * (ADAPTER/UNKNOWN_BLOCK, naming the item's index).
 *
 * An older turn's thinking dropped (thinking policy `drop-older`): its reasoning items are left
 * out and its other items sent as given (assistantItems) — its function, custom, shell and
 * apply_patch calls without their item ids, since the API refuses an `fc_…` id whose reasoning item
 * is missing; computer and local shell calls need their ids, so their turn's reasoning is read as
 * text (never dropped).
 */
import { fromOpenAIResponses, toOpenAIResponses, type ResponsesItem } from "@amplifier-ts/adapters";
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import { cachedRead, relocated, textOfContent, type FormatCodec, type Group, type ReadGroup, type SentPart } from "./fit-codec.js";

/** Each item's messages, by identity, shared by every fitter (fit-codec.ts, cachedRead): the same objects convert to the same messages, whose token counts are cached. */
const cache = new WeakMap<object, readonly Message[]>();
/** An assistant turn's message, by its first item, with the items it was read from (a hit needs the very same items). */
const turns = new WeakMap<object, { readonly items: readonly unknown[]; readonly messages: readonly Message[] }>();

export function openAIResponsesCodec(): FormatCodec {
  const names = new Map<string, string>();
  /** The item type of each call read (a made-up result is an output of the call's own kind). */
  const kinds = new Map<string, string>();
  return {
    format: "openai-responses",
    read(items, index): ReadGroup {
      let end = index;
      while (end < items.length && isAssistantItem(items[end])) end++;
      if (end > index) {
        const turn = items.slice(index, end);
        const hit = turns.get(turn[0] as object);
        let messages: readonly Message[];
        if (hit && hit.items.length === turn.length && hit.items.every((item, i) => item === turn[i])) messages = hit.messages;
        else {
          try {
            const pinned = turn.some((item) => ID_REQUIRED.has((item as { type?: string }).type ?? ""));
            messages = fromOpenAIResponses(turn.map((item) => (pinned && (item as { type?: string }).type === "reasoning" ? asText(item) : readable(item))) as ResponsesItem[]);
          } catch (error) {
            throw relocated(error, index);
          }
          turns.set(turn[0] as object, { items: turn, messages });
        }
        for (const call of messages[0]?.tool_calls ?? []) names.set(call.id, call.function.name);
        for (const item of turn) {
          const kind = CALLS[(item as { type?: string }).type ?? ""];
          if (kind) kinds.set(kind.callId(item as Record<string, unknown>), (item as { type: string }).type);
        }
        return { count: end - index, messages, open: end === items.length };
      }
      let messages = cachedRead(cache, items, index, (item) => fromOpenAIResponses([readable(item) as ResponsesItem]));
      const message = messages[0];
      if (message?.role === "tool" && message.name === undefined && names.has(message.tool_call_id!)) {
        messages = [{ ...message, name: names.get(message.tool_call_id!)! }];
        cache.set(items[index] as object, messages);
      }
      return { count: 1, messages };
    },
    rewrite(items, group: Group, sent: readonly SentPart[]) {
      const message = sent[0]!.message;
      if (isAssistantItem(items[group.first])) return assistantItems(items.slice(group.first, group.first + group.count), group.messages[0]!, message);
      if (group.count === 1) {
        const item = items[group.first] as Record<string, unknown>;
        if (item.type === "function_call_output" || item.type === "custom_tool_call_output" || item.type === "local_shell_call_output" || item.type === "apply_patch_call_output") return [{ ...item, output: textOfContent(message.content) }];
        if (item.type === "shell_call_output") {
          const chunks = Array.isArray(item.output) ? (item.output as { outcome?: unknown }[]) : [];
          return [{ ...item, output: [{ stdout: textOfContent(message.content), stderr: "", outcome: chunks.at(-1)?.outcome ?? { type: "exit", exit_code: 0 } }] }];
        }
        // A screenshot or an approval has no text to cut: sent as given.
        if (item.type === "computer_call_output" || item.type === "mcp_approval_response") return [item];
        if (message.role === "user" && typeof message.content === "string") return [{ ...item, content: message.content }];
      }
      return toOpenAIResponses(sent.map((s) => s.message)).input;
    },
    create(message) {
      if (message.role === "tool") return [outputFor(kinds.get(message.tool_call_id!), message.tool_call_id!, textOfContent(message.content))];
      if (message.role === "system" || message.role === "developer") return [{ type: "message", role: message.role, content: textOfContent(message.content) }];
      return toOpenAIResponses([{ role: message.role, content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) }]).input;
    },
  };
}

/**
 * An assistant turn the window sends changed — its thinking dropped (an older turn, thinking policy
 * `drop-older`), or calls a strategy removed: the caller's items that the sent message still holds,
 * each the caller's own object (reasoning items only while it keeps its thinking, calls whose call
 * it still makes, compaction items while it keeps its compaction block). Text items and built-in
 * tools' items stay while the message's text is unchanged; changed text is written as one
 * assistant message item where the first text item was.
 */
function assistantItems(turn: readonly unknown[], stored: Message, message: Message): unknown[] {
  const blocks = (content: Message["content"]) => (typeof content === "string" ? [{ type: "text", text: content } as ContentBlock] : (content ?? []));
  const sentBlocks = blocks(message.content);
  const thinking = sentBlocks.some((b) => b.type === "thinking" || b.type === "redacted_thinking");
  const compaction = sentBlocks.some((b) => b.type === "compaction");
  const calls = new Set((message.tool_calls ?? []).map((c) => c.id));
  const textOf = (list: readonly ContentBlock[]) => list.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\u0000");
  const sameText = textOf(sentBlocks) === textOf(blocks(stored.content));
  const out: unknown[] = [];
  let textWritten = false;
  // The API refuses a call item sent with its id (fc_…) without the reasoning item it came after
  // ("… was provided without its required 'reasoning' item"): once a turn's reasoning is dropped,
  // its calls are sent without their item ids (the id is optional on input; call_id pairs them).
  const reasoningDropped = !thinking && turn.some((raw) => (raw as { type?: string }).type === "reasoning");
  for (const raw of turn) {
    const item = raw as { type?: string; role?: string; call_id?: string; id?: unknown } & Record<string, unknown>;
    if (item.type === "reasoning") {
      if (thinking) out.push(raw);
    } else if (item.type === "compaction") {
      if (compaction) out.push(raw);
    } else if (CALLS[item.type ?? ""]) {
      if (!calls.has(CALLS[item.type!]!.callId(item))) continue;
      if (reasoningDropped && item.id !== undefined && !ID_REQUIRED.has(item.type!) && item.type !== "mcp_approval_request") {
        const { id: _id, ...rest } = item;
        out.push(rest);
      } else out.push(raw);
    } else if (sameText) out.push(raw);
    else if (!textWritten) {
      textWritten = true;
      const text = textOfContent(message.content);
      if (text !== "") out.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
    }
  }
  // Nor may a reasoning item end the turn without the item it led to (calls a strategy removed).
  while (out.length > 0 && (out[out.length - 1] as { type?: string }).type === "reasoning") out.pop();
  return out;
}

function isAssistantItem(item: unknown): boolean {
  const i = item as { type?: unknown; role?: unknown } | null;
  if (i === null || typeof i !== "object") return false;
  return i.type === "compaction" || i.type === "reasoning" || CALLS[i.type as string] !== undefined || SERVER_ITEMS.has(i.type as string) || (i.role === "assistant" && (i.type === undefined || i.type === "message"));
}

/** Items the model's built-in tools produced: part of the assistant turn, answered by the API itself (no output item of the caller's). */
const SERVER_ITEMS = new Set(["web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools", "item_reference"]);

/**
 * An item as the adapter reads it, for counting: a built-in tool's item is assistant text holding
 * its JSON (counted, sent as given); a custom tool's call and output are a function call and its
 * output (paired like one; the output's text truncated like one). Other items are read as they are.
 */
function readable(item: unknown): unknown {
  const i = item as { type?: string; call_id?: string; name?: string; input?: unknown; output?: unknown };
  if (SERVER_ITEMS.has(i?.type ?? "")) return { type: "message", role: "assistant", content: [{ type: "output_text", text: JSON.stringify(item) }] };
  const call = CALLS[i?.type ?? ""];
  if (call && i.type !== "function_call") return { type: "function_call", call_id: call.callId(item as Record<string, unknown>), name: call.name(item as Record<string, unknown>), arguments: call.arguments(item as Record<string, unknown>) };
  const output = OUTPUTS[i?.type ?? ""];
  if (output) return { type: "function_call_output", call_id: output.callId(item as Record<string, unknown>), output: output.output(item as Record<string, unknown>) };
  return item;
}

/** An item read as assistant text holding its JSON (counted as such, sent as given). */
function asText(item: unknown): unknown {
  return { type: "message", role: "assistant", content: [{ type: "output_text", text: JSON.stringify(item) }] };
}

type Item = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * The calls a caller runs and answers with an output item of its own kind, each read as a
 * function call (its pairing key as the call id) for counting and pairing, sent as given.
 */
const CALLS: Record<string, { callId(item: Item): string; name(item: Item): string; arguments(item: Item): string } | undefined> = {
  function_call: { callId: (i) => str(i.call_id), name: (i) => str(i.name), arguments: (i) => str(i.arguments) },
  custom_tool_call: { callId: (i) => str(i.call_id), name: (i) => str(i.name), arguments: (i) => JSON.stringify({ input: i.input }) },
  computer_call: { callId: (i) => str(i.call_id), name: () => "computer", arguments: (i) => JSON.stringify({ action: i.action, pending_safety_checks: i.pending_safety_checks }) },
  local_shell_call: { callId: (i) => str(i.call_id), name: () => "local_shell", arguments: (i) => JSON.stringify({ action: i.action }) },
  shell_call: { callId: (i) => str(i.call_id), name: () => "shell", arguments: (i) => JSON.stringify({ action: i.action }) },
  apply_patch_call: { callId: (i) => str(i.call_id), name: () => "apply_patch", arguments: (i) => JSON.stringify({ operation: i.operation }) },
  // An MCP tool call the user must approve: answered by an mcp_approval_response naming its id.
  mcp_approval_request: { callId: (i) => str(i.id), name: (i) => str(i.name) || "mcp_approval", arguments: (i) => JSON.stringify({ server_label: i.server_label, name: i.name, arguments: i.arguments }) },
};

/** Each call kind's output item: its pairing key, and the text it is counted (and truncated) as. */
const OUTPUTS: Record<string, { callId(item: Item): string; output(item: Item): unknown } | undefined> = {
  custom_tool_call_output: { callId: (i) => str(i.call_id), output: (i) => i.output },
  computer_call_output: {
    callId: (i) => str(i.call_id),
    output: (i) => {
      const shot = (i.output ?? {}) as { image_url?: unknown; file_id?: unknown };
      return typeof shot.image_url === "string" ? [{ type: "input_image", image_url: shot.image_url, detail: "auto" }] : JSON.stringify(i.output ?? null);
    },
  },
  local_shell_call_output: { callId: (i) => str(i.id), output: (i) => str(i.output) },
  shell_call_output: {
    callId: (i) => str(i.call_id),
    output: (i) => (Array.isArray(i.output) ? (i.output as { stdout?: unknown; stderr?: unknown }[]).map((c) => [str(c.stdout), str(c.stderr)].filter((t) => t !== "").join("\n")).join("\n") : ""),
  },
  apply_patch_call_output: { callId: (i) => str(i.call_id), output: (i) => [str(i.status), str(i.output)].filter((t) => t !== "").join(": ") },
  mcp_approval_response: { callId: (i) => str(i.approval_request_id), output: (i) => JSON.stringify({ approve: i.approve, ...(i.reason ? { reason: i.reason } : {}) }) },
};

/**
 * Calls whose item id the API requires on input (computer_call, local_shell_call): such a call
 * cannot be sent without the reasoning item it came after, so that reasoning is read as text
 * (counted as its JSON, never dropped as thinking) instead of thinking blocks.
 */
const ID_REQUIRED = new Set(["computer_call", "local_shell_call"]);

/** A result for a call of `kind` (undefined: a function call) — the engine's made-up result for an interrupted call. */
function outputFor(kind: string | undefined, callId: string, text: string): unknown {
  switch (kind) {
    case "custom_tool_call":
      return { type: "custom_tool_call_output", call_id: callId, output: text };
    case "local_shell_call":
      return { type: "local_shell_call_output", id: callId, output: text };
    case "shell_call":
      return { type: "shell_call_output", call_id: callId, output: [{ stdout: "", stderr: text, outcome: { type: "exit", exit_code: 1 } }] };
    case "apply_patch_call":
      return { type: "apply_patch_call_output", call_id: callId, status: "failed", output: text };
    case "mcp_approval_request":
      return { type: "mcp_approval_response", approval_request_id: callId, approve: false, reason: text };
    case "computer_call":
      // The API takes only a screenshot as a computer call's output: a blank one (1×1 PNG).
      return { type: "computer_call_output", call_id: callId, output: { type: "computer_screenshot", image_url: BLANK_PNG } };
    default:
      return { type: "function_call_output", call_id: callId, output: text };
  }
}

/** A fully transparent 1×1 PNG (RGBA, one zero pixel). */
const BLANK_PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=";
