import type { MemoryEventJson } from "@amplifier-ts/contracts";
import type { InspectorSession, MessageView, ToolCallView } from "../inspector-data.js";
import { foldText, type FoldedText } from "./fold-text.js";

export interface MessageEntry {
  kind: "message";
  key: string;
  message: MessageView;
  body: FoldedText;
  /** The turn whose window produced this assistant message (its "window" link). */
  turn?: number;
  /** For each call this message answers: the call's tool name and arguments (when the call is in the session). */
  answers: Array<{ id: string; call?: ToolCallView }>;
  /** Marks the timeline shows beside the role: "turn note", "ephemeral", "critical", "summary of 12", "2 images", "in memory". */
  marks: string[];
  /** Memory events that record this message (a tool call, its result, the prompt, the answer): shown once, as this message. */
  recorded: MemoryEventJson[];
}

export interface EventEntry {
  kind: "event";
  key: string;
  time: string;
  eventType: string;
  body: FoldedText;
}

export type TimelineEntry = MessageEntry | EventEntry;

/**
 * Messages and memory events on one timeline: messages in stored order; each event placed before
 * the first message stamped later than it (events after the last stamped message come last; events
 * of one time keep their order). Tool results name the call they answer; assistant messages that
 * closed a turn link to that turn's window (a recorded one, else the simulation's).
 *
 * One thing happens once on the timeline: a memory event that records a message (the memory
 * recorder's tool_call / tool_result with the message's call id, user_message / agent_response
 * with its exact text) is not listed on its own; the message carries it (`recorded`, mark "in memory").
 */
export function timeline(session: Pick<InspectorSession, "messages" | "events" | "analysis" | "recorded">): TimelineEntry[] {
  const turnAt = new Map<number, number>();
  for (const t of session.analysis?.turns ?? []) turnAt.set(t.messageIndex, t.turn);
  for (const t of session.recorded ?? []) turnAt.set(t.messageIndex, t.turn);
  const calls = new Map<string, ToolCallView>();
  const recordedBy = recordingsOf(session);
  const events = session.events
    .filter((event) => !recordedBy.has(event))
    .map((event, order) => ({ event, order, ms: Date.parse(event.timestamp) }))
    .sort((a, b) => (Number.isNaN(a.ms) ? Infinity : a.ms) - (Number.isNaN(b.ms) ? Infinity : b.ms) || a.order - b.order);
  const entries: TimelineEntry[] = [];
  let next = 0;
  for (const message of session.messages) {
    const ms = message.timestamp === undefined ? Number.NaN : Date.parse(message.timestamp);
    if (!Number.isNaN(ms)) while (next < events.length && events[next]!.ms < ms) entries.push(eventEntry(events[next++]!.event, entries.length));
    for (const call of message.toolCalls) calls.set(call.id, call);
    const entry: MessageEntry = {
      kind: "message",
      key: `m${message.index}`,
      message,
      body: foldText(message.text),
      answers: message.resultFor.map((id) => {
        const call = calls.get(id);
        return call === undefined ? { id } : { id, call };
      }),
      marks: marksOf(message),
      recorded: session.events.filter((event) => recordedBy.get(event) === message.index),
    };
    if (entry.recorded.length > 0) entry.marks.push("in memory");
    const turn = turnAt.get(message.index);
    if (turn !== undefined) entry.turn = turn;
    entries.push(entry);
  }
  while (next < events.length) entries.push(eventEntry(events[next++]!.event, entries.length));
  return entries;
}

/** Memory event → the index of the message it records (see timeline). */
function recordingsOf(session: Pick<InspectorSession, "messages" | "events">): Map<MemoryEventJson, number> {
  const byCall = new Map<string, number>();
  const byResult = new Map<string, number>();
  const byText = new Map<string, number>();
  for (const m of session.messages) {
    for (const call of m.toolCalls) byCall.set(call.id, m.index);
    for (const id of m.resultFor) byResult.set(id, m.index);
    if ((m.role === "user" || m.role === "assistant") && m.text !== "") byText.set(`${m.role}\u0000${m.text}`, m.index);
  }
  const out = new Map<MemoryEventJson, number>();
  for (const event of session.events) {
    const content = event.content as { callId?: unknown } | string | undefined;
    const callId = typeof content === "object" && content !== null && typeof content.callId === "string" ? content.callId : undefined;
    let at: number | undefined;
    if (event.event_type === "tool_call" && callId !== undefined) at = byCall.get(callId);
    else if (event.event_type === "tool_result" && callId !== undefined) at = byResult.get(callId);
    else if (event.event_type === "user_message" && typeof content === "string") at = byText.get(`user\u0000${content}`);
    else if (event.event_type === "agent_response" && typeof content === "string") at = byText.get(`assistant\u0000${content}`);
    if (at !== undefined) out.set(event, at);
  }
  return out;
}

function marksOf(message: MessageView): string[] {
  const marks: string[] = [];
  if (message.note) marks.push("turn note");
  if (message.ephemeral) marks.push("ephemeral");
  if (message.critical) marks.push("critical");
  if (message.summaryOf !== undefined) marks.push(`summary of ${message.summaryOf.length}`);
  if (message.images > 0) marks.push(message.images === 1 ? "1 image" : `${message.images} images`);
  return marks;
}

function eventEntry(event: MemoryEventJson, position: number): EventEntry {
  const content = typeof event.content === "string" ? event.content : JSON.stringify(event.content, null, 2);
  return { kind: "event", key: `e${position}-${event.event_id}`, time: event.timestamp, eventType: event.event_type, body: foldText(content ?? "") };
}
