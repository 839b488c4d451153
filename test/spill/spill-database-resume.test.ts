/**
 * Spilled inputs of PostgreSQL, Redis and hybrid sessions: their blob store is in memory, so a new
 * process has none of the blobs. The stored history holds the whole message (invariant 5): a read
 * of a handle finds it there — before any window, and for a message older than a window reaches,
 * which no window re-spills — and writes its blob again.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import { SPILLED_RESULTS_CAPABILITY, type SpilledResults } from "../../contracts/index.js";
import type { Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import { PG_URL, schemasDroppedAfterAll } from "../stores/postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "../stores/redis-support.js";
import { bigLog, toolRound } from "./spill-fixtures.js";

const schema = schemasDroppedAfterAll();
const keyPrefix = testKeyPrefix();
afterAll(() => dropPrefixes(keyPrefix));
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
});

const stores: [string, () => Record<string, unknown>][] = [
  ["postgres", () => ({ type: "postgres", url: PG_URL, schema: schema() })],
  ["redis", () => ({ type: "redis", url: REDIS_URL, keyPrefix: `${keyPrefix}${Math.random().toString(36).slice(2)}:` })],
  ["hybrid", () => ({ type: "hybrid", recentN: 20, hot: { type: "redis", url: REDIS_URL, keyPrefix: `${keyPrefix}${Math.random().toString(36).slice(2)}:` }, cold: { type: "postgres", url: PG_URL, schema: schema() } })],
];

async function open(store: Record<string, unknown>): Promise<{ session: Session; spills: AmplifierEvents["context:spill"][]; reader: SpilledResults }> {
  const session = await createSession({ session: { context: { module: "context-persistent", config: { sessionId: "spilled", model: "gpt-4o", store } } } });
  sessions.push(session);
  const spills: AmplifierEvents["context:spill"][] = [];
  session.coordinator.hooks.on("context:spill", (event) => void spills.push(event));
  return { session, spills, reader: session.coordinator.getCapability<SpilledResults>(SPILLED_RESULTS_CAPABILITY)! };
}

async function closed(session: Session): Promise<void> {
  sessions.splice(sessions.indexOf(session), 1);
  await session.close();
}

describe.each(stores)("spilled results of a %s session, read by a new process", (_, config) => {
  it("a handle reads the whole text before any window, and after later messages put it out of a window's reach", async () => {
    const store = config();
    const log = bigLog(120_000);
    const first = await open(store);
    for (const m of toolRound("Why did order ord-77123 fail?", log)) await first.session.context.addMessage(m);
    await first.session.context.getMessagesForRequest(16_000);
    expect(first.spills).toHaveLength(1);
    const handle = first.spills[0]!.handle;
    expect(await first.reader.read(handle)).toBe(log);
    await closed(first.session);

    // A new process: its blob store (in memory) is empty; no window asked for yet.
    const second = await open(store);
    expect(await second.reader.read(handle)).toBe(log);
    // ~30k tokens of later turns: a 16k window no longer reaches the spilled result.
    for (let i = 0; i < 60; i++) await second.session.context.addMessage({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i}: ${"lorem ipsum dolor sit amet ".repeat(80)}` });
    await closed(second.session);

    const third = await open(store);
    const window = await third.session.context.getMessagesForRequest(16_000);
    expect(window.some((m) => String(m.content).includes(handle))).toBe(false);
    expect(third.spills).toEqual([]);
    expect(await third.reader.read(handle)).toBe(log);
    await expect(third.reader.read("spill-000000000000000000000000")).rejects.toMatchObject({ code: "SPILL/UNKNOWN_HANDLE" });
  });
});
