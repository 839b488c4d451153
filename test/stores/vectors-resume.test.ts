import { afterAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../contracts/index.js";
import { createSession } from "../../src/session/index.js";
import { dropSchemas, PG_URL, testSchemaName } from "./postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "./redis-support.js";

/**
 * Issue 30: the embedder's vectors are kept with the session whatever its store — the session's
 * attachments vectors-0 … in a PostgreSQL table or a Redis hash as in files beside a JSONL
 * session — so a resume embeds nothing again. Counted with a fake embedder (one dimension per
 * topic) passed to the session as the capability "embedder".
 */
const schema = testSchemaName();
const keyPrefix = testKeyPrefix();
afterAll(async () => {
  await dropSchemas(schema);
  await dropPrefixes(keyPrefix);
});

function countingEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    name: "topics",
    dimensions: 3,
    texts,
    embed: async (batch) => (texts.push(...batch), batch.map((t) => Float32Array.from([/automobile|vehicle/.test(t) ? 1 : 0, /pizza|dinner/.test(t) ? 1 : 0, 0.05]))),
  };
}

describe.each([
  ["postgres", { type: "postgres", url: PG_URL, schema }],
  ["redis", { type: "redis", url: REDIS_URL, keyPrefix }],
])("vectors kept in the %s store", (_name, store) => {
  it("a resume with stored vectors embeds nothing, and ranks by them at once", async () => {
    const config = { session: { context: { module: "context-persistent", config: { sessionId: `vectors-${_name}`, store, strategies: [{ use: "recall" }] } } } };
    const first = countingEmbedder();
    const a = await createSession(config as never, { capabilities: { embedder: first } });
    await a.context.addMessage({ role: "user", content: "I drive an old automobile to work", metadata: { id: "car" } });
    for (let i = 0; i < 120; i++) await a.context.addMessage({ role: i % 2 ? "assistant" : "user", content: `status update ${i} on the quarterly report`, metadata: { id: `m${i}` } });
    await a.context.indexReady?.();
    expect(first.texts.length).toBeGreaterThanOrEqual(121);
    await a.close();

    const second = countingEmbedder();
    const b = await createSession(config as never, { capabilities: { embedder: second } });
    await b.context.indexReady?.();
    expect(second.texts).toEqual([]);
    const hits = await (b.context as unknown as { search(q: string, o: object): Promise<{ id: string }[]> }).search("which vehicle", { k: 1 });
    expect(hits[0]?.id).toBe("car"); // no shared word: found by the stored vector
    expect(second.texts).toEqual(["which vehicle"]); // the query alone was embedded
    await b.close();
  });
});
