/**
 * Spilled inputs of a JSONL session: the blob store sits beside the session file, the handle is
 * the same after a resume (the window of the resumed session names it, and reads it), nothing is
 * written or announced again, and the "spilled-results" capability reads it for tools.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import { SPILLED_RESULTS_CAPABILITY, type SpilledResults } from "../../contracts/index.js";
import type { Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { bigLog, NEEDLE, toolRound } from "./spill-fixtures.js";

let dir: string;
const sessions: Session[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-spill-"));
});
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(sessionId = "s1", agentId?: string): Promise<{ session: Session; spills: AmplifierEvents["context:spill"][] }> {
  const session = await createSession({
    session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId, model: "gpt-4o", ...(agentId ? { agentId } : {}) } } },
  });
  sessions.push(session);
  const spills: AmplifierEvents["context:spill"][] = [];
  session.coordinator.hooks.on("context:spill", (event) => void spills.push(event));
  return { session, spills };
}

const handleIn = (text: string) => /spill-[0-9a-f]{24}/.exec(text)?.[0];

describe("spilling in a JSONL session", () => {
  it("the handle survives a resume: same handle in the window, the blob beside the session, no second write or event", async () => {
    const log = bigLog(250_000);
    const first = await open();
    for (const m of toolRound("Why did order ord-77123 fail?", log)) await first.session.context.addMessage(m);
    const before = await first.session.context.getMessagesForRequest(16_000);
    expect(first.spills).toHaveLength(1);
    const handle = first.spills[0]!.handle;
    expect(handleIn(String(before[2]!.content))).toBe(handle);
    // The file blob store beside the session file (its own layout inside).
    expect((await readdir(join(dir, "s1.spilled"), { recursive: true })).some((name) => name.endsWith(".blob"))).toBe(true);
    await first.session.close();
    sessions.splice(sessions.indexOf(first.session), 1);

    const second = await open();
    const after = await second.session.context.getMessagesForRequest(16_000);
    expect(second.spills).toEqual([]);
    expect(handleIn(String(after[2]!.content))).toBe(handle);
    expect(String(after[2]!.content)).toContain(NEEDLE);
    const reader = second.session.coordinator.getCapability<SpilledResults>(SPILLED_RESULTS_CAPABILITY)!;
    expect(await reader.read(handle)).toBe(log);
    // The history itself is the whole message (nothing was lost or rewritten).
    expect((await second.session.context.getMessages())[2]!.content).toBe(log);
  });

  it("another agent's session keeps its spilled inputs in its own folder", async () => {
    const { session, spills } = await open("s2", "planner");
    for (const m of toolRound("Why did order ord-77123 fail?", bigLog(120_000))) await session.context.addMessage(m);
    await session.context.getMessagesForRequest(16_000);
    expect(spills).toHaveLength(1);
    expect((await readdir(join(dir, "agents", "planner", "s2.spilled"), { recursive: true })).some((name) => name.endsWith(".blob"))).toBe(true);
  });
});
