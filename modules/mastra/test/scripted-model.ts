/**
 * The fake model of the Mastra agent tests: after a user message it calls a tool — on even turns
 * `lookup` (small arguments, a large result), on odd turns `saveNote` (a large note in its
 * arguments, a small result): the two shapes tools have —, after the tool result it answers in
 * text. `made` records every call it made, so a request can be checked to carry the calls as made.
 */
import type { Reply } from "../../../test/providers/fake-api-server.js";

export interface ScriptedModel {
  reply(api: string, body: Record<string, unknown>, index: number): Reply;
  /** Call id → the arguments the model sent (JSON). */
  readonly made: Map<string, string>;
}

export function scriptedModel(): ScriptedModel {
  const made = new Map<string, string>();
  return {
    made,
    reply(_api, body, index) {
      const messages = body.messages as { role: string; content: unknown }[];
      if (messages.at(-1)!.role === "tool") return { text: `The parcel is on its way (answer ${index}); it should arrive tomorrow before noon.` };
      const asked = [...messages].reverse().find((m) => m.role === "user");
      const turn = Number(/Turn (\d+)/.exec(typeof asked?.content === "string" ? asked.content : JSON.stringify(asked?.content))?.[1] ?? 0);
      const id = `call_${index}`;
      const call =
        turn % 2 === 0
          ? { id, name: "lookup", arguments: { query: `parcel query ${index}` } }
          : { id, name: "saveNote", arguments: { note: Array.from({ length: 30 }, (_, i) => `Customer call ${index}, point ${i}: asked about parcel ${turn * 31}, wants delivery after ${8 + (i % 10)} o'clock.`).join(" ") } };
      made.set(id, JSON.stringify(call.arguments));
      return { toolCalls: [call] };
    },
  };
}
