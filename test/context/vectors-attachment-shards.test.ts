import { describe, expect, it } from "vitest";
import { lineBytes, vectorsAttachment } from "../../modules/context-persistent/vectors-attachment.js";

/** The history stores' limit on one attachment (STORES.md): a longer text is refused. */
const STORE_LIMIT = 16 * 1024 * 1024;

function attachments() {
  const texts = new Map<number, string>();
  const refused: number[] = [];
  return {
    texts,
    refused,
    attachment: (index: number) => ({
      where: `vectors-${index}`,
      read: async () => texts.get(index),
      write: async (text: string) => {
        if (text.length > STORE_LIMIT) {
          refused.push(text.length);
          throw new Error(`attachment of ${text.length} characters over the limit`);
        }
        texts.set(index, text);
      },
    }),
  };
}

function vector(seed: number, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = Math.sin(seed * 31 + i) / 7;
  return v;
}

describe("vector attachments are sharded under the stores' limit", () => {
  it("a line is no longer than lineBytes says, for the dimensions in use", () => {
    for (const dimensions of [1, 3, 384, 512, 1536, 3072]) {
      const v = vector(1, dimensions);
      const line = JSON.stringify({ k: "0123456789abcdef", v: Buffer.from(v.buffer).toString("base64") });
      expect(line.length + 1).toBeLessThanOrEqual(lineBytes(dimensions));
    }
  });

  it("7,100 vectors of 512 numbers (a 10k-message session) are written in shards the store accepts, and all are read back", { timeout: 60_000 }, async () => {
    const store = attachments();
    const degraded: string[] = [];
    const archive = vectorsAttachment({ attachment: store.attachment, degraded: async (r) => void degraded.push(r), delayMs: 0 });
    const entries: [string, Float32Array][] = Array.from({ length: 7_100 }, (_, i) => [`key-${String(i).padStart(12, "0")}`, vector(i, 512)]);
    for (let i = 0; i < entries.length; i += 500) archive.save("hash-512", entries.slice(i, i + 500));
    await archive.flush();
    expect(store.refused, "attachments refused by the store").toEqual([]);
    expect(degraded).toEqual([]);
    expect(store.texts.size).toBeGreaterThan(1);
    for (const text of store.texts.values()) expect(text.length).toBeLessThanOrEqual(12 * 1024 * 1024);

    const resumed = vectorsAttachment({ attachment: store.attachment, degraded: async (r) => void degraded.push(r) });
    const loaded = new Map(await resumed.load("hash-512"));
    expect(loaded.size).toBe(entries.length);
    expect([...loaded.get("key-000000007099")!]).toEqual([...entries[7_099]![1]]);
  });
});
