import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { createLocalEmbedder, LOCAL_EMBEDDER_NAME, LOCAL_EMBEDDING_DIMENSIONS } from "../index.js";

/**
 * The real model (vitest.model.config.ts: long limits, one file at a time). The network test runs
 * the built package (dist/, as users do) in a child process whose sockets and name lookups all
 * fail — in its worker threads too — so a download anywhere would fail the embedding.
 */
const HERE = fileURLToPath(new URL(".", import.meta.url));
const DIST = join(HERE, "..", "dist", "index.js");

const TEXTS = ["The retry budget for fetchUser is three attempts.", "Priya moved to Lisbon last June.", "", "x".repeat(5_000)];

function embedOffline(): { vectors: number[][]; name: string; dimensions: number; stderr: string; status: number | null } {
  const script = `
    const { createLocalEmbedder } = await import(${JSON.stringify(DIST)});
    const embedder = createLocalEmbedder();
    const vectors = await embedder.embed(${JSON.stringify(TEXTS)});
    await embedder.close();
    process.stdout.write(JSON.stringify({ name: embedder.name, dimensions: embedder.dimensions, vectors: vectors.map((v) => Array.from(v)) }));
  `;
  const run = spawnSync(process.execPath, ["--require", join(HERE, "block-network.cjs"), "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
    // A dead proxy as well: were anything to honour the proxy variables, it would meet nothing.
    env: { ...process.env, HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", https_proxy: "http://127.0.0.1:9" },
  });
  const parsed = run.status === 0 ? (JSON.parse(run.stdout) as { vectors: number[][]; name: string; dimensions: number }) : { vectors: [], name: "", dimensions: 0 };
  return { ...parsed, stderr: run.stderr, status: run.status };
}

describe("embedder-local: the Universal Sentence Encoder lite, offline", () => {
  it("embeds with the network cut: one unit vector of 512 numbers per text, the same in two processes", () => {
    const first = embedOffline();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("NETWORK ATTEMPT");
    expect(first).toMatchObject({ name: LOCAL_EMBEDDER_NAME, dimensions: LOCAL_EMBEDDING_DIMENSIONS });
    expect(first.vectors).toHaveLength(TEXTS.length);
    for (const vector of first.vectors) {
      expect(vector).toHaveLength(LOCAL_EMBEDDING_DIMENSIONS);
      expect(vector.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 3);
    }
    const second = embedOffline();
    expect(second.status, second.stderr).toBe(0);
    expect(second.vectors).toEqual(first.vectors);
  });

  const embedder = createLocalEmbedder({ batchSize: 4 });
  afterAll(() => embedder.close());

  it("places a paraphrase nearer than an unrelated sentence, and answers a batch as its texts one by one", async () => {
    const [query, paraphrase, unrelated] = await embedder.embed(["How many times do we retry fetching a user?", "fetchUser is retried up to three times", "The cat sleeps on the warm windowsill"]);
    const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    expect(cosine(query!, paraphrase!)).toBeGreaterThan(cosine(query!, unrelated!));
    const alone = await embedder.embed(["fetchUser is retried up to three times"]);
    expect(cosine(alone[0]!, paraphrase!)).toBeGreaterThan(0.9999);
    expect(await embedder.embed([])).toEqual([]);
  });

  it("rejects what is not a list of strings, and every call after close(), with typed errors", async () => {
    await expect(embedder.embed([1 as unknown as string])).rejects.toSatisfy((e) => isAmplifierError(e, "INVALID_ARGUMENT"));
    const closing = createLocalEmbedder({ preload: false });
    await closing.close();
    await expect(closing.embed(["a"])).rejects.toSatisfy((e) => isAmplifierError(e, "EMBEDDER_LOCAL/CLOSED"));
    expect(() => createLocalEmbedder({ batchSize: 0 })).toThrow(/batchSize/);
  });
});
