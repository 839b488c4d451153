import { describe, expect, it } from "vitest";
import type { HistoryStore, Message } from "@amplifier-ts/contracts";
import { HybridStore, MemoryStore, type HybridStoreEvent } from "../index.js";

/**
 * The hybrid store passes each call's agent to both of its stores, and remembers the agent of a
 * session whose hot list went stale, so a restore rebuilds that agent's list (not the default's).
 */
const msg = (text: string): Message => ({ role: "user", content: text, metadata: { id: text } });
const contents = (ms: readonly Message[]) => ms.map((m) => m.content);
const ALPHA = { agentId: "alpha" };

/** A MemoryStore whose writes fail while `down` is set. */
function flakyHot(): { store: HistoryStore; setDown(down: boolean): void } {
  const inner = new MemoryStore();
  let down = false;
  const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => (...args: A): Promise<R> => (down ? Promise.reject(new Error("hot store down")) : call(...args));
  const store: HistoryStore = Object.assign(Object.create(inner) as HistoryStore, {
    append: guard(inner.append.bind(inner)),
    appendMany: guard(inner.appendMany.bind(inner)),
    replace: guard(inner.replace.bind(inner)),
    count: guard(inner.count.bind(inner)),
    read: guard(inner.read.bind(inner)),
  });
  return { store, setDown: (value) => void (down = value) };
}

describe("HybridStore agents", () => {
  it("keeps each agent's hot tail apart; recent() and hotView() read the named agent's", async () => {
    const hot = new MemoryStore();
    const store = new HybridStore({ hot, cold: new MemoryStore(), recentN: 2 });
    for (const text of ["d0", "d1", "d2"]) await store.append("s", msg(text));
    for (const text of ["a0", "a1", "a2", "a3"]) await store.append("s", msg(text), ALPHA);
    // (The cap of a hot list is the hot store's own: Redis's maxMessages; a MemoryStore keeps all.)
    expect(contents(await hot.read("s"))).toEqual(["d0", "d1", "d2"]);
    expect(contents(await hot.read("s", ALPHA))).toEqual(["a0", "a1", "a2", "a3"]);
    expect(contents(await store.read("s", ALPHA))).toEqual(["a0", "a1", "a2", "a3"]);
    expect(contents(await store.recent("s", 1, ALPHA))).toEqual(["a3"]);
    expect(contents(await store.hotView(ALPHA).read("s", { offset: 2 }))).toEqual(["a2", "a3"]);
    expect(await store.hotView().count("s")).toBe(3);
    await store.replace("s", [msg("new")], ALPHA);
    expect(contents(await hot.read("s", ALPHA))).toEqual(["new"]);
    expect(contents(await hot.read("s"))).toEqual(["d0", "d1", "d2"]);
    await store.close();
  });

  it("a stale agent's session is rebuilt into that agent's hot list when the hot store comes back", async () => {
    const events: HybridStoreEvent[] = [];
    const hot = flakyHot();
    const store = new HybridStore({ hot: hot.store, cold: new MemoryStore(), recentN: 3, probeIntervalMs: 1, onEvent: (e) => void events.push(e) });
    await store.append("s", msg("d0"));
    await store.append("s", msg("a0"), ALPHA);
    hot.setDown(true);
    await store.append("s", msg("a1"), ALPHA);
    expect(store.degraded).toBe(true);
    expect(events[0]).toMatchObject({ name: "context:storage_degraded", payload: { detail: { sessionId: "s", agentId: "alpha" } } });
    hot.setDown(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.append("s", msg("a2"), ALPHA);
    expect(store.degraded).toBe(false);
    expect(events.map((e) => e.name)).toEqual(["context:storage_degraded", "context:storage_restored"]);
    expect(contents(await hot.store.read("s", ALPHA))).toEqual(["a0", "a1", "a2"]);
    expect(contents(await hot.store.read("s"))).toEqual(["d0"]);
    await store.close();
  });
});
