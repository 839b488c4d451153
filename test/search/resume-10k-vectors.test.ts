import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../contracts/index.js";
import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { generateHistory } from "../bench/history-generator.js";

/**
 * Issue 30's done-when: the resume of a 10,000-message JSONL session whose vectors are stored
 * embeds nothing — not at open, not once indexed, not for a window with recall. (PostgreSQL and
 * Redis: test/stores/vectors-resume.test.ts, at 121 messages.) The embedder is a counting hash
 * embedder (512 dimensions).
 */
function countingHashEmbedder(): Embedder & { texts: number } {
  const state = { texts: 0 };
  const hash = (w: string) => {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  return Object.assign(state, {
    name: "hash-512",
    dimensions: 512,
    embed: async (texts: string[]) => {
      state.texts += texts.length;
      return texts.map((t) => {
        const v = new Float32Array(512);
        for (const w of t.toLowerCase().split(/[^a-z0-9]+/)) if (w !== "") v[hash(w) % 512]! += hash(w) & 1024 ? 1 : -1;
        return v;
      });
    },
  });
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("resume of a 10,000-message JSONL session with stored vectors", () => {
  it("embeds nothing", { timeout: 240_000 }, async () => {
    const storagePath = await mkdtemp(join(tmpdir(), "amplifier-vectors-10k-"));
    dirs.push(storagePath);
    const open = async (embedder: Embedder) => {
      const coordinator = new Coordinator();
      coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
      const context = await mountPersistent(coordinator, { storagePath, sessionId: "big", fsync: "never", strategies: [{ use: "recall" }] });
      return { coordinator, context };
    };
    const history = generateHistory({ count: Number(process.env.RESUME_N ?? 10_000), seed: 3, idPrefix: "r" });
    const first = countingHashEmbedder();
    const a = await open(first);
    await a.context.setMessages(history);
    await a.context.indexReady();
    expect(first.texts).toBeGreaterThan(1_000); // the history was embedded (distinct texts), so there is something to keep
    await a.coordinator.cleanup();
    if (process.env.RESUME_DEBUG) console.log((await import("node:fs")).readdirSync(storagePath, { recursive: true }));

    const second = countingHashEmbedder();
    const b = await open(second);
    expect((await b.context.getMessages()).length).toBe(history.length);
    await b.context.indexReady();
    await b.context.getMessagesForRequest(8_000, undefined);
    await b.context.indexReady();
    expect(second.texts).toBe(0);
    await b.coordinator.cleanup();
  });
});
