/**
 * A spilled input's text does not outlive its message (issue 28 follow-up): clear(), setMessages()
 * without the message, clearRun() — and in a JSONL session a resumed process that clears — delete
 * its blob before the call resolves; read_stored_result then answers SPILL/UNKNOWN_HANDLE. A
 * message that stays keeps its blob.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import type { Message } from "../../contracts/generated/message.js";
import type { Session } from "../../core/session.js";
import { HookBus } from "../../core/hooks/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { createSession } from "../../src/session/index.js";
import { bigLog, toolRound } from "./spill-fixtures.js";

const BUDGET = 16_000;

function manager(): { context: HistoryContextManager; spills: AmplifierEvents["context:spill"][] } {
  const hooks = new HookBus();
  const spills: AmplifierEvents["context:spill"][] = [];
  hooks.on("context:spill", (event) => void spills.push(event));
  return { context: new HistoryContextManager({ moduleName: "context-simple", options: { model: "gpt-4o" }, hooks }), spills };
}

async function spilled(context: HistoryContextManager, spills: AmplifierEvents["context:spill"][], messages: Message[]): Promise<string> {
  for (const m of messages) await context.addMessage(m);
  await context.getMessagesForRequest(BUDGET);
  expect(spills.length).toBeGreaterThan(0);
  return spills.at(-1)!.handle;
}

describe("spilled text goes with its message", () => {
  it("clear(): the handle no longer reads", async () => {
    const { context, spills } = manager();
    const log = bigLog(300_000);
    const handle = await spilled(context, spills, toolRound("Why did order ord-77123 fail?", log));
    expect(await context.readSpilled(handle)).toBe(log);
    await context.clear();
    await expect(context.readSpilled(handle)).rejects.toMatchObject({ code: "SPILL/UNKNOWN_HANDLE" });
  });

  it("setMessages(): a message kept keeps its blob, a message left out loses it", async () => {
    const { context, spills } = manager();
    const first = toolRound("Why did order ord-1 fail?", bigLog(300_000), "call_1");
    const second = toolRound("And order ord-2?", bigLog(280_000), "call_2");
    const h1 = await spilled(context, spills, first);
    const h2 = await spilled(context, spills, second);
    expect(h1).not.toBe(h2);
    const stored = await context.getMessages();
    // Keep the second round only (the same messages, by their ids).
    await context.setMessages(stored.slice(first.length));
    await expect(context.readSpilled(h1)).rejects.toMatchObject({ code: "SPILL/UNKNOWN_HANDLE" });
    expect(await context.readSpilled(h2)).toBe(second[2]!.content);
  });

  it("clearRun(): the run's spilled results go with it", async () => {
    const { context, spills } = manager();
    context.startRun("run-a");
    const handle = await spilled(context, spills, toolRound("Why did order ord-3 fail?", bigLog(300_000), "call_3"));
    context.startRun("run-b");
    await context.addMessage({ role: "user", content: "Something else." });
    await context.clearRun("run-a");
    await expect(context.readSpilled(handle)).rejects.toMatchObject({ code: "SPILL/UNKNOWN_HANDLE" });
  });
});

describe("a JSONL session's spilled files", () => {
  let dir: string;
  const sessions: Session[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "amplifier-spill-forget-"));
  });
  afterEach(async () => {
    await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  });
  const open = async () => {
    const session = await createSession({ session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId: "s1", model: "gpt-4o" } } } });
    sessions.push(session);
    return session;
  };
  const blobs = async () => (await readdir(join(dir, "s1.spilled"), { recursive: true }).catch(() => [] as string[])).filter((name) => String(name).endsWith(".blob"));

  it("are deleted by clear() — in the process that spilled them and in a later one (the session's carried spills name them)", async () => {
    const first = await open();
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(250_000))) await first.context.addMessage(m);
    await first.context.getMessagesForRequest(BUDGET);
    expect(await blobs()).toHaveLength(1);
    await first.close();
    sessions.length = 0;

    // A later process: it never spilled anything itself.
    const second = await open();
    expect(await blobs()).toHaveLength(1);
    await second.context.clear();
    expect(await blobs()).toHaveLength(0);
  });
});
