import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createInspector, historyStoreSource, liveSessions } from "@amplifier-ts/inspector";
import type { HistoryScope } from "@amplifier-ts/contracts";
import { createHistoryStore, JsonlStore } from "@amplifier-ts/stores";
import { Coordinator } from "../../core/coordinator.js";
import { HistoryContextManager } from "../../modules/context-manager/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";

/**
 * Issue 24 item 8: the Inspector's session view carries what was sent — the context manager's
 * records — for a live session (its manager's windowRecords()) and for a stored one (the session's
 * windows-<n> attachments, read by a readOnly store); a record that cannot be read is said, never a
 * failed page.
 */
const tool = (name: string) => ({ type: "function" as const, function: { name, parameters: { type: "object", properties: {} } } });

async function agentTurns(context: HistoryContextManager, turns: number, budget: number): Promise<void> {
  for (let k = 0; k < turns; k++) {
    await context.addMessage({ role: "user", content: `question ${k} ${"words ".repeat(200)}`, metadata: { id: `u${k}` } });
    await context.getMessagesForRequest(budget);
    await context.addMessage({ role: "assistant", content: `answer ${k}`, metadata: { id: `a${k}` } });
  }
}

describe("the Inspector's session view: what was sent", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("a live session: its manager's records, one per turn, with budget, model and tools", async () => {
    const context = new HistoryContextManager({ moduleName: "live-test", options: { model: "gpt-4o-mini" }, tools: [tool("search"), tool("fetch")] });
    await agentTurns(context, 5, 800);
    const live = liveSessions();
    live.add("chat", context);
    const view = await createInspector({ sources: [live] }).session("live", "chat", { analysis: false });
    expect(view.recorded?.map((t) => [t.turn, t.messageIndex, t.budget, t.model])).toEqual([1, 2, 3, 4, 5].map((turn) => [turn, 2 * turn - 1, 800, "gpt-4o-mini"]));
    expect(view.recorded![4]!.tools.map((t) => t.name)).toEqual(["search", "fetch"]);
    // Over budget: older turns dropped, in one run.
    expect(view.recorded![4]!.decisions.some((d) => d.decision === "dropped" && d.code === "before-cut")).toBe(true);
  });

  it("a long stored session: its full record segments are read once, then only the newest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "inspector-records-"));
    dirs.push(dir);
    const coordinator = new Coordinator({ sessionId: "long" });
    const context = await mountPersistent(coordinator, { storagePath: dir });
    await agentTurns(context, 70, 900);
    await coordinator.cleanup();
    const store = new JsonlStore({ storagePath: dir, readOnly: true });
    try {
      const read: string[] = [];
      const readAttachment = store.readAttachment.bind(store);
      store.readAttachment = (sessionId: string, name: string, scope?: HistoryScope) => (read.push(name), readAttachment(sessionId, name, scope));
      const inspector = createInspector({ sources: [historyStoreSource(store, "jsonl")] });
      expect((await inspector.session("jsonl", "long", { analysis: false })).recorded).toHaveLength(70);
      expect(read).toEqual(["windows-0", "windows-1", "windows-2"]);
      read.length = 0;
      expect((await inspector.session("jsonl", "long", { analysis: false })).recorded).toHaveLength(70);
      expect(read).toEqual(["windows-1", "windows-2"]);
    } finally {
      await store.close();
    }
  });

  it("a stored session: the records context-persistent kept, read by a readOnly store; a broken segment is recordError", async () => {
    const dir = await mkdtemp(join(tmpdir(), "inspector-records-"));
    dirs.push(dir);
    const coordinator = new Coordinator({ sessionId: "stored" });
    const context = await mountPersistent(coordinator, { storagePath: dir, model: "gpt-4o-mini" });
    context.setTools([tool("search")]);
    await agentTurns(context, 3, 900);
    await coordinator.cleanup();
    const store = await createHistoryStore({ type: "jsonl", storagePath: dir, readOnly: true });
    try {
      const inspector = createInspector({ sources: [historyStoreSource(store, "jsonl")] });
      const view = await inspector.session("jsonl", "stored", { analysis: false });
      expect(view.recorded?.map((t) => [t.turn, t.budget, t.model, t.tools.length])).toEqual([
        [1, 900, "gpt-4o-mini", 1],
        [2, 900, "gpt-4o-mini", 1],
        [3, 900, "gpt-4o-mini", 1],
      ]);
      await writeFile(join(dir, "stored.windows-0.json"), '{"v":1,"toolSets":[],"windows":[{"at":1}]}');
      const broken = await inspector.session("jsonl", "stored", { analysis: false });
      expect(broken.recorded).toBeUndefined();
      expect(broken.recordError).toMatch(/windows-0.*windows\[0\]/);
      expect(broken.messages).toHaveLength(6);
    } finally {
      await store.close();
    }
  });
});
