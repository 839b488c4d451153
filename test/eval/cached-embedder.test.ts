import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Embedder } from "../../contracts/search.js";
import { cachedEmbedder, cachedVectorCount, resetVectorFiles, vectorCacheFile, vectorKey } from "./cached-embedder.js";

const dirs: string[] = [];
afterEach(() => {
  resetVectorFiles();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A counting model: the vector of a text is its length and its first char code. */
function model() {
  const calls: string[][] = [];
  let closed = 0;
  const embedder: Embedder & { close(): Promise<void> } = {
    name: "toy",
    embed: async (texts) => (calls.push([...texts]), texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 0, 0.5]))),
    close: async () => void closed++,
  };
  return { embedder, calls, closed: () => closed };
}

describe("the eval's vector cache (issue 30)", () => {
  it("a second run (another process: the file read again) embeds nothing and gives the same vectors; only missing texts reach the model, once each", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vectors-"));
    dirs.push(dir);
    const file = vectorCacheFile("toy model@1", dir);
    const first = model();
    let made = 0;
    const a = cachedEmbedder({ name: "toy model@1", file, model: () => (made++, first.embedder) });
    const v1 = await a.embed(["alpha", "beta", "alpha"]);
    expect(first.calls).toEqual([["alpha", "beta"]]);
    const v2 = await a.embed(["beta", "gamma"]);
    expect(first.calls).toEqual([["alpha", "beta"], ["gamma"]]);
    expect(made).toBe(1);
    expect(a.stats).toEqual({ hits: 1, embedded: 3, missing: 0 });
    await a.close();
    expect(first.closed()).toBe(1);

    resetVectorFiles(); // as a new process
    const second = model();
    const b = cachedEmbedder({ name: "toy model@1", file, model: () => second.embedder });
    const again = await b.embed(["alpha", "beta", "alpha", "gamma"]);
    expect(second.calls).toEqual([]);
    expect(again.map((v) => [...v])).toEqual([...v1, v2[1]!].map((v) => [...v]));
    expect(cachedVectorCount("toy model@1", file)).toBe(3);
  });

  it("cache only: a miss is an EVAL_VECTORS/MISSING error; a record cut short at the end is skipped by readers and cut off by the next writer; another model's name is another key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vectors-"));
    dirs.push(dir);
    const file = vectorCacheFile("toy", dir);
    await cachedEmbedder({ name: "toy", file, model: () => model().embedder }).embed(["kept"]);
    const whole = statSync(file).size;
    appendFileSync(file, readFileSync(file).subarray(0, 30)); // a killed run's half record
    resetVectorFiles();
    const only = cachedEmbedder({ name: "toy", file });
    expect((await only.embed(["kept"]))[0]![0]).toBe(4);
    await expect(only.embed(["kept", "new one"])).rejects.toMatchObject({ code: "EVAL_VECTORS/MISSING", missing: 1 });
    expect(only.stats.missing).toBe(1);
    expect(statSync(file).size).toBe(whole + 30); // a reader leaves the file alone (a writer may be appending)
    // A writer cuts the half record off before it appends: what it appends is read back.
    await cachedEmbedder({ name: "toy", file, model: () => model().embedder }).embed(["later"]);
    resetVectorFiles();
    expect(cachedVectorCount("toy", file)).toBe(2);
    expect((await cachedEmbedder({ name: "toy", file }).embed(["later"]))[0]![0]).toBe(5);
    expect(vectorKey("toy", "kept")).not.toBe(vectorKey("toy2", "kept"));
  });
});
