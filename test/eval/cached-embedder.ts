/**
 * A disk cache of an embedder's vectors for the recall evals (issue 30): the offline model of
 * modules/embedder-local embeds ~16 texts/s here, so the ~40,000 texts of REALTALK and the QMSum
 * sample take most of an hour once — and nothing the second time.
 *
 * | what                | how                                                                                            |
 * |---------------------|------------------------------------------------------------------------------------------------|
 * | where               | `.cache/eval/vectors/<model name, made file-safe>.bin` (EVAL_VECTOR_DIR overrides the folder) |
 * | key                 | the first 16 bytes of sha256(model name + NUL + text): another model, another key             |
 * | record              | key (16 bytes), dimensions (uint32 LE), the vector (dimensions × float32 LE)                  |
 * | writes              | appended after each embed() call that missed (one process writes at a time); a reader never changes the file (a record cut short — a killed run, or a write in progress — is not read); before it appends, a writer reads what was added since and cuts off a record a killed run left short |
 * | a miss              | the texts not in the cache go to the model, made only on the first miss (a full cache loads no model); `cacheOnly`: a miss is an EVAL_VECTORS/MISSING error naming how many texts were missing |
 *
 * The vectors are the model's own (not normalised here; MessageVectors normalises what it stores),
 * so a run from the cache ranks exactly as a run with the model.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Embedder } from "../../contracts/search.js";

/** Where vector files are kept: EVAL_VECTOR_DIR, else .cache/eval/vectors under `root` (the repository root: where npm runs). */
export function vectorCacheDir(root = process.cwd()): string {
  return resolve(process.env.EVAL_VECTOR_DIR ?? join(root, ".cache/eval/vectors"));
}

/** The cache file of a model (its name made file-safe). */
export function vectorCacheFile(model: string, dir = vectorCacheDir()): string {
  return join(dir, `${model.replace(/[^A-Za-z0-9._-]+/g, "_")}.bin`);
}

const KEY_BYTES = 16;

/** The key of `text` under `model`. */
export function vectorKey(model: string, text: string): string {
  return createHash("sha256").update(model).update("\0").update(text).digest().subarray(0, KEY_BYTES).toString("hex");
}

/** The vectors of one cache file, read once per process (every embedder over the same file shares them). */
class VectorFile {
  readonly vectors = new Map<string, Float32Array>();
  /** Bytes of whole records read so far. */
  #valid = 0;

  constructor(readonly path: string) {
    this.#readFrom(0);
  }

  /** Reads the whole records from byte `from` on (what another run appended since, too); returns the bytes after the last whole one. */
  #readFrom(from: number): number {
    if (!existsSync(this.path)) return 0;
    const bytes = readFileSync(this.path);
    let at = from;
    while (at + KEY_BYTES + 4 <= bytes.length) {
      const dims = bytes.readUInt32LE(at + KEY_BYTES);
      const end = at + KEY_BYTES + 4 + dims * 4;
      if (end > bytes.length) break;
      const key = bytes.subarray(at, at + KEY_BYTES).toString("hex");
      const vector = new Float32Array(dims);
      for (let i = 0; i < dims; i++) vector[i] = bytes.readFloatLE(at + KEY_BYTES + 4 + i * 4);
      this.vectors.set(key, vector);
      at = end;
    }
    this.#valid = at;
    return bytes.length - at;
  }

  append(entries: readonly (readonly [string, Float32Array])[]): void {
    if (entries.length === 0) return;
    // Only the writer touches the file: whatever another run appended is read first, and a record
    // a killed run cut short is cut off, so what is appended here starts on a record boundary.
    if (existsSync(this.path) && statSync(this.path).size !== this.#valid) {
      if (this.#readFrom(this.#valid) > 0) truncateSync(this.path, this.#valid);
    }
    const size = entries.reduce((s, [, v]) => s + KEY_BYTES + 4 + v.length * 4, 0);
    const out = Buffer.alloc(size);
    let at = 0;
    for (const [key, vector] of entries) {
      Buffer.from(key, "hex").copy(out, at);
      out.writeUInt32LE(vector.length, at + KEY_BYTES);
      for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, at + KEY_BYTES + 4 + i * 4);
      at += KEY_BYTES + 4 + vector.length * 4;
      this.vectors.set(key, vector);
    }
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, out);
    this.#valid += size;
  }
}

const files = new Map<string, VectorFile>();

function fileFor(path: string): VectorFile {
  let file = files.get(path);
  if (!file) files.set(path, (file = new VectorFile(path)));
  return file;
}

/** Forget the files read by this process (tests). */
export function resetVectorFiles(): void {
  files.clear();
}

export interface VectorCacheStats {
  /** Texts answered from the cache. */
  hits: number;
  /** Texts sent to the model. */
  embedded: number;
  /** Texts a cache-only embedder was asked for and did not have. */
  missing: number;
}

export interface CachedEmbedder extends Embedder {
  readonly stats: VectorCacheStats;
  /** Closes the model's embedder when one was made. */
  close(): Promise<void>;
}

export interface CachedEmbedderOptions {
  /** The model's name (what the keys and the file are named by; the embedder's `name`). */
  name: string;
  dimensions?: number;
  /** Makes the model's embedder on the first miss; absent: cache only (a miss is an error). */
  model?: () => Embedder & { close?(): Promise<void> };
  /** The cache file (default: vectorCacheFile(name)). */
  file?: string;
}

/** An Embedder answering from the disk cache, embedding (and keeping) only what it lacks. */
export function cachedEmbedder(options: CachedEmbedderOptions): CachedEmbedder {
  const file = fileFor(options.file ?? vectorCacheFile(options.name));
  let model: (Embedder & { close?(): Promise<void> }) | undefined;
  const stats: VectorCacheStats = { hits: 0, embedded: 0, missing: 0 };
  return {
    name: options.name,
    ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {}),
    stats,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const keys = texts.map((t) => vectorKey(options.name, t));
      const out: (Float32Array | undefined)[] = keys.map((k) => file.vectors.get(k));
      const missedAt = keys.filter((_, i) => out[i] === undefined);
      const missed = [...new Set(missedAt)];
      stats.hits += texts.length - missedAt.length;
      if (missed.length > 0) {
        if (!options.model) {
          stats.missing += missed.length;
          throw Object.assign(new Error(`EVAL_VECTORS/MISSING: ${missed.length} of ${texts.length} texts have no cached vector of ${options.name} in ${file.path}`), {
            code: "EVAL_VECTORS/MISSING",
            missing: missed.length,
          });
        }
        model ??= options.model();
        const firstText = new Map<string, string>();
        keys.forEach((k, i) => firstText.has(k) || firstText.set(k, texts[i]!));
        const vectors = await model.embed(missed.map((k) => firstText.get(k)!));
        if (vectors.length !== missed.length) throw new Error(`the model returned ${vectors.length} vectors for ${missed.length} texts`);
        file.append(missed.map((k, i) => [k, vectors[i]!] as const));
        stats.embedded += missed.length;
        for (let i = 0; i < out.length; i++) out[i] ??= file.vectors.get(keys[i]!);
      }
      return out.map((v) => v!.slice());
    },
    async close() {
      await model?.close?.();
      model = undefined;
    },
  };
}

/** How many vectors the cache file of `name` holds (0 when there is none). */
export function cachedVectorCount(name: string, file = vectorCacheFile(name)): number {
  return existsSync(file) ? fileFor(file).vectors.size : 0;
}
