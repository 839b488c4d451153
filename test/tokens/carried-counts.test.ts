/**
 * Token counts carried from one process to the next (modules/tokens/carried-counts.ts): a count is
 * taken only for a message whose count snapshot hashes the same; an edited message is counted
 * anew; bad records are INVALID_ARGUMENT; context-persistent keeps them beside the session.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { createSession } from "../../src/session/index.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { MessageTokenCache } from "../../modules/tokens/message-cache.js";
import { exportTokenCounts, getTokenCounter, importTokenCounts } from "../../modules/tokens/index.js";

const message = (text: string, id = "m1"): Message => ({ role: "user", content: text, metadata: { id } });

describe("carried token counts", () => {
  it("a cache that carries another's counts answers without counting, for the same snapshot only", () => {
    const first = new MessageTokenCache();
    const original = message("the quick brown fox");
    expect(first.getOrCount(original, () => 42)).toBe(42);
    const pairs = first.carriedOf([original, message("never counted", "m2")]);
    expect(pairs).toHaveLength(1);

    const next = new MessageTokenCache();
    expect(next.carry(pairs)).toBe(1);
    let counted = 0;
    const count = () => ++counted && 7;
    // Another object, another id: only the snapshot can match it.
    expect(next.getOrCount(message("the quick brown fox", "other-id"), count)).toBe(42);
    expect(counted).toBe(0);
    // Edited text: counted anew.
    expect(next.getOrCount(message("the quick brown fox!", "m1"), count)).toBe(7);
    expect(counted).toBe(1);
    // undefined and null are different snapshots.
    const named = { ...message("x"), name: undefined } as unknown as Message;
    const a = new MessageTokenCache();
    a.getOrCount(named, () => 5);
    const b = new MessageTokenCache();
    b.carry(a.carriedOf([named]));
    expect(b.getOrCount({ ...message("x"), name: null } as unknown as Message, () => 6)).toBe(6);
  });

  it("exportTokenCounts reports the built-in counters' counts by cache; importTokenCounts refuses what is not such a record", () => {
    const counter = getTokenCounter("gpt-4o");
    const m = message("carried across processes", "carry-1");
    const tokens = counter.countMessage(m);
    const exported = exportTokenCounts([m]);
    const entries = Object.entries(exported.caches);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.some(([key, pairs]) => key.startsWith("o200k_base|") && pairs.some(([, n]) => n === tokens || Math.ceil(n * counter.safetyFactor - 1e-9) === tokens))).toBe(true);
    expect(importTokenCounts(exported)).toBeGreaterThan(0);
    for (const bad of [null, 42, { version: 2, caches: {} }, { version: 1 }, { version: 1, caches: { k: [["h"]] } }]) {
      expect(() => importTokenCounts(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
  });
});

describe("context-persistent keeps carried counts beside the session", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "amplifier-counts-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const open = () => createSession({ session: { context: { module: "context-persistent", config: { storagePath: dir, sessionId: "s", fsync: "never" } } } });

  it("writes <sessionId>.counts.json at close with the window's counts; a damaged file is ignored (the window is counted again) and replaced at close", async () => {
    const first = await open();
    for (let i = 0; i < 6; i++) await first.context.addMessage(message(`turn ${i} of a conversation`, `u${i}`));
    const window = await first.context.getMessagesForRequest(10_000);
    await first.close();
    const record = JSON.parse(await readFile(join(dir, "s.counts.json"), "utf8")) as { version: number; caches: Record<string, unknown[]> };
    expect(record.version).toBe(1);
    expect(Object.values(record.caches).flat().length).toBeGreaterThanOrEqual(window.length);

    const second = await open();
    expect(await second.context.getMessagesForRequest(10_000)).toEqual(window);
    await second.close();

    await writeFile(join(dir, "s.counts.json"), "{ not json");
    const third = await open();
    expect(await third.context.getMessagesForRequest(10_000)).toEqual(window);
    await third.close();
    expect(JSON.parse(await readFile(join(dir, "s.counts.json"), "utf8"))).toMatchObject({ version: 1 });
  });

  it("an unusable counts file is reported as context:storage_degraded when the session opens", async () => {
    await writeFile(join(dir, "s.counts.json"), JSON.stringify({ version: 7 }));
    const coordinator = new Coordinator({ sessionId: "s" });
    const reasons: string[] = [];
    coordinator.hooks.on("context:storage_degraded", (event) => void reasons.push(String((event as { reason?: unknown }).reason)));
    const context = await mountPersistent(coordinator, { storagePath: dir, sessionId: "s", fsync: "never" });
    await context.addMessage(message("after a bad counts file"));
    expect(reasons).toEqual([expect.stringContaining("s.counts.json cannot be used")]);
    await coordinator.cleanup();
    expect(JSON.parse(await readFile(join(dir, "s.counts.json"), "utf8"))).toMatchObject({ version: 1 });
  });
});
