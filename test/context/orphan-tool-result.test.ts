/**
 * Issue 25 item 15: addMessage of a tool result whose call is unknown was accepted silently. It is
 * still stored (the history keeps what it was given) but now reported: context:orphan_tool_result.
 */
import { describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import type { Message } from "../../contracts/generated/message.js";
import { HookBus } from "../../core/hooks/index.js";
import { createSession } from "../../src/session/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";

type Orphan = AmplifierEvents["context:orphan_tool_result"];

/** Lets the observers' dispatch (not awaited by addMessage) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function watched(): { context: HistoryContextManager; orphans: Orphan[] } {
  const hooks = new HookBus();
  const orphans: Orphan[] = [];
  hooks.on("context:orphan_tool_result", (event) => void orphans.push(event));
  return { context: new HistoryContextManager({ moduleName: "context-simple", options: {}, hooks }), orphans };
}

const call = (id: string): Message => ({ role: "assistant", content: "", tool_calls: [{ id, type: "function", function: { name: "ls", arguments: "{}" } }] });
const result = (id: string, metaId?: string): Message => ({ role: "tool", tool_call_id: id, content: "out", ...(metaId === undefined ? {} : { metadata: { id: metaId } }) });

describe("context:orphan_tool_result", () => {
  it("a tool message whose call is unknown: stored as given, reported with its id and call id, never sent", async () => {
    const { context, orphans } = watched();
    await context.addMessage({ role: "user", content: "list the files" });
    await context.addMessage(result("call_nowhere", "r1"));
    await settle();
    expect(orphans).toEqual([{ role: "tool", id: "r1", callIds: ["call_nowhere"], messageCount: 2 }]);
    expect((await context.getMessages()).map((m) => m.role)).toEqual(["user", "tool"]);
    expect((await context.getMessagesForRequest(10_000)).some((m) => m.role === "tool")).toBe(false);
  });

  it("Anthropic blocks: a user message's tool_result for an unknown tool_use names only the orphan ids", async () => {
    const { context, orphans } = watched();
    await context.addMessage({ role: "user", content: "go" });
    await context.addMessage({ role: "assistant", content: [{ type: "tool_use", id: "tu_1", name: "ls", input: {} }] });
    await context.addMessage({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "tu_1", content: "ok" },
        { type: "tool_result", tool_use_id: "tu_ghost", content: "?" },
      ],
      metadata: { id: "u2" },
    });
    await settle();
    expect(orphans).toEqual([{ role: "user", id: "u2", callIds: ["tu_ghost"], messageCount: 3 }]);
  });

  it("a paired result reports nothing; a second result for an answered call is reported", async () => {
    const { context, orphans } = watched();
    await context.addMessage({ role: "user", content: "go" });
    await context.addMessage(call("c1"));
    await context.addMessage(result("c1"));
    await settle();
    expect(orphans).toEqual([]);
    await context.addMessage(result("c1", "again"));
    await settle();
    expect(orphans).toEqual([{ role: "tool", id: "again", callIds: ["c1"], messageCount: 4 }]);
  });

  it("setMessages and a resume report nothing: that history was already there", async () => {
    const { context, orphans } = watched();
    await context.setMessages([{ role: "user", content: "x" }, result("old")]);
    await settle();
    expect(orphans).toEqual([]);
  });

  it("a session made by createSession reports it on session.hooks (context-simple)", async () => {
    const session = await createSession({ session: { context: { module: "context-simple", config: {} } } });
    try {
      const heard: Orphan[] = [];
      session.hooks.on("context:orphan_tool_result", (event) => void heard.push(event));
      await session.context.addMessage(result("call_typo"));
      await settle();
      expect(heard.map((e) => e.callIds)).toEqual([["call_typo"]]);
    } finally {
      await session.close();
    }
  });
});
