/**
 * The worker thread that fetches, in the background, the stored JSON of a resumed session's rows
 * that open() did not read (pg-resume.ts), inside the snapshot open() read the rest in. It runs in
 * a thread of its own because the main thread may have to wait for a row SYNCHRONOUSLY (a lazy
 * message is parsed inside a property read): the main thread then blocks in Atomics.wait while
 * this thread, with its own event loop and connection, goes on fetching (pg-row-source.ts).
 *
 * Protocol (pg-loader-protocol.ts; workerData: LoaderInput; the Int32Array over `shared`, slots
 * in LOADER_SLOTS):
 *
 * | step | this thread | the main thread |
 * |---|---|---|
 * | start | connects, BEGIN REPEATABLE READ, SET TRANSACTION SNAPSHOT; posts `imported` | commits the transaction that exported the snapshot once `imported` (or `failed`) arrives |
 * | each page | fetches it, posts `page` (one transferred buffer of UTF-8 text and the offsets of its rows), then bumps `delivered` and notifies | takes pages as they come; a read of a row whose page is missing writes `requested` and waits on `delivered` |
 * | order | the requested page first, then the page after the last requested (a forward pass), else the newest page left | — |
 * | end | COMMIT, `state` = DONE; on any error posts `failed`, `state` = FAILED | rows not yet delivered throw STORAGE_UNAVAILABLE when read |
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import pg from "pg";
import { LOADER_SLOTS, LOADER_STATE, type LoaderInput, type LoaderMessage } from "./pg-loader-protocol.js";

async function load(input: LoaderInput): Promise<void> {
  const { port, shared: buffer } = input;
  const shared = new Int32Array(buffer);
  const client = new pg.Client({ connectionString: input.url });
  try {
    if (!/^[0-9A-Fa-f-]+$/.test(input.snapshot)) throw new Error(`not a snapshot id: ${input.snapshot}`);
    await client.connect();
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    await client.query(`SET TRANSACTION SNAPSHOT '${input.snapshot}'`);
    post(port, { type: "imported" });
    const count = input.pages.length / 2;
    const left = new Set<number>(Array.from({ length: count }, (_, i) => i));
    let forward = -1;
    while (left.size > 0) {
      const requested = Atomics.load(shared, LOADER_SLOTS.requested) - 1;
      const index = left.has(requested) ? requested : left.has(forward) ? forward : Math.max(...left);
      if (index === requested) forward = requested + 1;
      else if (index === forward) forward++;
      left.delete(index);
      const first = input.pages[2 * index]!;
      const last = input.pages[2 * index + 1]!;
      const { rows } = await client.query<[string | null]>({ text: input.sql, values: [input.agent, input.sessionId, first, last], rowMode: "array" });
      if (rows.length !== last - first + 1 || rows.some((r) => r[0] === null)) throw new Error(`rows ${first}..${last} changed under the snapshot (${rows.length} read)`);
      const { text, offsets } = pack(rows);
      port.postMessage({ type: "page", index, text, offsets } satisfies LoaderMessage, [text, offsets.buffer as ArrayBuffer]);
      Atomics.add(shared, LOADER_SLOTS.delivered, 1);
      Atomics.notify(shared, LOADER_SLOTS.delivered);
    }
    await client.query("COMMIT");
    finish(shared, LOADER_STATE.done);
  } catch (error) {
    post(port, { type: "failed", message: error instanceof Error ? error.message : String(error) });
    finish(shared, LOADER_STATE.failed);
  } finally {
    await client.end().catch(() => undefined);
    port.close();
  }
}

/** The rows' texts as one UTF-8 buffer (transferred, not copied) and the byte offset of each row, plus the end. */
function pack(rows: readonly [string | null][]): { text: ArrayBuffer; offsets: Int32Array } {
  const offsets = new Int32Array(rows.length + 1);
  let total = 0;
  for (let i = 0; i < rows.length; i++) {
    offsets[i] = total;
    total += Buffer.byteLength(rows[i]![0]!);
  }
  offsets[rows.length] = total;
  const text = new ArrayBuffer(total);
  const view = Buffer.from(text);
  for (let i = 0; i < rows.length; i++) view.write(rows[i]![0]!, offsets[i]!, "utf8");
  return { text, offsets };
}

function post(port: MessagePort, message: LoaderMessage): void {
  port.postMessage(message);
}

function finish(shared: Int32Array, state: number): void {
  Atomics.store(shared, LOADER_SLOTS.state, state);
  Atomics.add(shared, LOADER_SLOTS.delivered, 1);
  Atomics.notify(shared, LOADER_SLOTS.delivered);
}

if (parentPort !== null && workerData !== null && typeof workerData === "object" && "snapshot" in workerData) void load(workerData as LoaderInput);
