/**
 * open() of a PostgreSQL session, lazily: what the first window needs is read now, the rest in
 * the background, and every message is parsed only when something reads it (the lazy messages of
 * @amplifier-ts/stores, over a PgRowSource).
 *
 * | step | reads |
 * |---|---|
 * | 1 | a REPEATABLE READ snapshot, exported (the loader thread reads in it too) |
 * | 2 | every row's `bytes` and `facts` (schema version 3), as ONE JSON text built by the server: the window plans its cut on the facts alone |
 * | 3 | the stored JSON (`body`) of the tail (the newest rows up to TAIL_BYTES, at least one), of critical rows before it (a window always shows them), and of rows without usable facts (written before version 3 or by SQL: their `message`, parsed and checked now, as an eager open did — INVALID_MESSAGE when it is no Message) |
 * | 4 | the other rows' `body`, in the background: a worker thread (pg-body-loader.ts) fetches them in pages, newest first, and a read of a row not fetched yet waits for its page (pg-row-source.ts) |
 *
 * Where no loader thread can start (the package bundled without its pg-body-loader.js), step 4
 * happens in step 3: every row is fetched before open() resolves, still parsed lazily.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import type pg from "pg";
import type { Message, MessageFacts } from "@amplifier-ts/contracts";
import { decodeFacts, decodeStoredText, lazyMessagesFrom, type LazyRecord } from "@amplifier-ts/stores";
import type { TableNames } from "./postgres-migrations.js";
import type { LoaderInput } from "./pg-loader-protocol.js";
import { PgRowSource } from "./pg-row-source.js";

/** The newest rows read by open() itself: well beyond a 128k-token window (~0.5 MB of JSON). */
const TAIL_BYTES = 4 * 1024 * 1024;
/** A loader page: a run of rows up to PAGE_BYTES of JSON or PAGE_ROWS rows (at least one). */
const PAGE_BYTES = 4 * 1024 * 1024;
const PAGE_ROWS = 2_000;
/** The longest the snapshot's exporter stays open waiting for the loader to import it. */
const IMPORT_WAIT_MS = 30_000;

const HERE = import.meta.url;
/** From dist/ the loader is a sibling; from the TypeScript source (tests), the built one in dist/. */
const LOADER = fileURLToPath(new URL(HERE.endsWith(".ts") ? "./dist/pg-body-loader.js" : "./pg-body-loader.js", HERE));

export interface ResumeTarget {
  names: TableNames;
  /** The store's url (user included): the loader connects with it. */
  url: string;
  agent: string;
  sessionId: string;
  /** Names the session in errors (password hidden). */
  where: string;
  module: string;
}

export interface Resumed {
  messages: Message[];
  /** Settles when the snapshot's exporter has ended (its connection back in the pool) and the loader thread too. */
  settled: Promise<void>;
}

/** Runs the steps above on `client` (its own: the transaction outlives this call until the loader imported the snapshot). */
export async function resumeSession(client: pg.PoolClient, target: ResumeTarget): Promise<Resumed> {
  const { names, agent, sessionId } = target;
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  const { rows: snap } = await client.query<{ s: string }>("SELECT pg_export_snapshot() AS s");
  const { rows: summary } = await client.query<{ n: number; top: string | null; f: string | null }>(
    `SELECT count(*)::int AS n, max(seq) AS top, string_agg(bytes || ',' || coalesce(facts::text, 'null'), ',' ORDER BY seq) AS f
     FROM ${names.messages} WHERE agent_id = $1 AND session_id = $2`,
    [agent, sessionId],
  );
  const n = summary[0]?.n ?? 0;
  if (n > 0 && Number(summary[0]!.top) !== n - 1) throw new Error(`session ${sessionId} has gaps in its sequence (${n} rows, last seq ${summary[0]!.top})`);
  const flat = n === 0 ? [] : (JSON.parse(`[${summary[0]!.f}]`) as unknown[]);
  const bytes = new Array<number>(n);
  const facts = new Array<MessageFacts | undefined>(n);
  for (let i = 0; i < n; i++) {
    bytes[i] = flat[2 * i] as number;
    const row = flat[2 * i + 1];
    facts[i] = Array.isArray(row) ? decodeFacts(row) : undefined;
  }
  let tail = n;
  for (let sum = 0; tail > 0 && (tail === n || sum < TAIL_BYTES); ) sum += bytes[--tail]!;
  const now: number[] = [];
  for (let i = 0; i < tail; i++) if (facts[i] === undefined || facts[i]!.critical) now.push(i);

  const texts = new Array<string | undefined>(n);
  const { rows } = await client.query<[string, string]>({
    text: `SELECT seq, CASE WHEN facts IS NULL THEN message::text ELSE coalesce(body, message::text) END
           FROM ${names.messages} WHERE agent_id = $1 AND session_id = $2 AND (seq >= $3 OR seq = ANY($4::bigint[])) ORDER BY seq`,
    values: [agent, sessionId, tail, now],
    rowMode: "array",
  });
  for (const [seq, text] of rows) texts[Number(seq)] = text;

  const pages = pagesOf(texts, bytes, tail);
  const loader = pages.length > 0 && existsSync(LOADER) ? LOADER : undefined;
  if (pages.length > 0 && loader === undefined) {
    for (let p = 0; p < pages.length; p += 2) {
      const { rows: more } = await client.query<[string]>({ text: pageSql(names), values: [agent, sessionId, pages[p], pages[p + 1]], rowMode: "array" });
      more.forEach(([text], k) => (texts[pages[p]! + k] = text));
    }
    pages.length = 0;
  }

  const source = new PgRowSource(target.where, target.module, texts, pages);
  const records: LazyRecord[] = [];
  const positions: number[] = [];
  const messages = new Array<Message>(n);
  for (let i = 0; i < n; i++) {
    const known = facts[i];
    if (known === undefined) {
      // Written before version 3 (or by SQL): checked now, as every row was by an eager open.
      messages[i] = decodeStoredText(texts[i]!, sessionId, i, target.module);
      texts[i] = undefined;
    } else {
      // Its size is the row's stored JSON length (spilling bounds its text by it, unparsed), not end - start.
      records.push({ start: i, end: i + 1, facts: known, size: bytes[i]! });
      positions.push(i);
    }
  }
  const lazy = lazyMessagesFrom(source, records);
  for (let k = 0; k < positions.length; k++) messages[positions[k]!] = lazy[k]!;

  if (loader !== undefined) startLoader(loader, source, { url: target.url, snapshot: snap[0]!.s, sql: pageSql(names), agent, sessionId, pages });
  return { messages, settled: Promise.all([endWhenImported(client, source), source.finished]).then(() => undefined) };
}

/** Runs of rows before the tail whose text is not read yet, as flattened [first, last] pairs. */
function pagesOf(texts: readonly (string | undefined)[], bytes: readonly number[], tail: number): number[] {
  const pages: number[] = [];
  let first = -1;
  let size = 0;
  for (let i = 0; i <= tail; i++) {
    const pending = i < tail && texts[i] === undefined;
    if (first >= 0 && (!pending || i - first >= PAGE_ROWS || size >= PAGE_BYTES)) {
      pages.push(first, i - 1);
      first = -1;
    }
    if (!pending) continue;
    if (first < 0) {
      first = i;
      size = 0;
    }
    size += bytes[i]!;
  }
  return pages;
}

function startLoader(file: string, source: PgRowSource, input: Omit<LoaderInput, "shared" | "port">): void {
  const { port1, port2 } = new MessageChannel();
  const shared = new SharedArrayBuffer(16);
  try {
    const worker = new Worker(file, { workerData: { ...input, shared, port: port2 } satisfies LoaderInput, transferList: [port2] });
    source.attach({ worker, port: port1, shared });
  } catch (error) {
    source.fail(`the loader thread did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Commits the exporting transaction once the loader has imported its snapshot (or failed, or after IMPORT_WAIT_MS). */
async function endWhenImported(client: pg.PoolClient, source: PgRowSource): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let broken: Error | undefined;
  try {
    await Promise.race([source.imported, new Promise<void>((resolve) => (timer = setTimeout(resolve, IMPORT_WAIT_MS).unref()))]);
    await client.query("COMMIT");
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
  } finally {
    clearTimeout(timer);
    client.release(broken);
  }
}

/** One page of stored JSON, in seq order: $1 agent, $2 session, $3 first seq, $4 last seq. */
function pageSql(names: TableNames): string {
  return `SELECT CASE WHEN facts IS NULL THEN message::text ELSE coalesce(body, message::text) END FROM ${names.messages}
          WHERE agent_id = $1 AND session_id = $2 AND seq BETWEEN $3 AND $4 ORDER BY seq`;
}
