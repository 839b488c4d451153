/**
 * Scenario 2 — resume: a 100,000-message JSONL session on disk is opened by context-persistent in a
 * fresh process (cold: nothing cached, tiktoken not loaded), and the first window is assembled.
 * Target: < 1 s from mount to first window.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ContextManager } from "../../contracts/context-manager.js";
import type { SessionConfigInput } from "../../core/session.js";
import { createSession } from "../../core/session.js";
import { getTokenCounter } from "../../core/tokens/index.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { HISTORY_SEED } from "./agent-loop-turn.js";
import { reportToParent, runChild } from "./child.js";
import { openContext } from "./contexts.js";
import { generateHistory, rawJsonBytes } from "./history-generator.js";
import { bytes, count, distribution, ms } from "./measure.js";
import { PERSISTENT_MODULE_PATH } from "./replay.js";
import { check, type BenchContext, type Scenario, type ScenarioResult } from "./scenario.js";

export interface PreparedSession {
  storagePath: string;
  sessionId: string;
  messages: number;
  rawBytes: number;
  fileBytes: number;
  writeMs: number;
}

export interface ResumeSample {
  mode: "mount" | "createSession";
  /** mount() (or createSession()) until it resolved: reading and parsing the file, building the state. */
  openMs: number;
  /** The first getMessagesForRequest after open (tiktoken loads here, lazily). */
  firstWindowMs: number;
  totalMs: number;
  /** A second window right after (warm). */
  secondWindowMs: number;
  stored: number;
  windowMessages: number;
}

const RUNS = 3;

/** Writes (once per run) a session of `messages` messages with context-persistent itself, so the file is in its own format. */
export async function prepareSession(ctx: BenchContext, messages: number): Promise<PreparedSession> {
  const key = `session:${messages}`;
  const cached = ctx.memo.get(key) as PreparedSession | undefined;
  if (cached) return cached;
  ctx.log(`resume: writing a ${count(messages)}-message session with context-persistent`);
  const storagePath = join(ctx.tmpRoot, `resume-${messages}`);
  const sessionId = `bench-resume-${messages}`;
  let history: ReturnType<typeof generateHistory> | undefined = generateHistory({ count: messages, seed: HISTORY_SEED, idPrefix: "r" });
  const rawBytes = rawJsonBytes(history);
  const opened = await openContext("context-persistent (fsync never)", { tmpRoot: ctx.tmpRoot, storagePath, sessionId, removeOnClose: false });
  const t0 = performance.now();
  try {
    await opened.context.setMessages(history);
  } finally {
    await opened.close();
  }
  const writeMs = performance.now() - t0;
  history = undefined;
  const prepared: PreparedSession = { storagePath, sessionId, messages, rawBytes, fileBytes: await folderBytes(storagePath), writeMs };
  ctx.memo.set(key, prepared);
  return prepared;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : (await stat(path)).size;
  }
  return total;
}

/** The parts of a resume, each measured alone in a fresh process. */
export interface ResumeParts {
  /** JsonlStore.open(): read, split and JSON.parse the whole file (no context). */
  storeOpenMs: number;
  /** Loading tiktoken's o200k_base encoding (gpt-4o), cold. */
  tiktokenLoadMs: number;
}

/** Child side: `--child resume <storagePath> <sessionId> <budget> <mode> <compileCacheDir>`. */
export async function resumeChild(args: string[]): Promise<void> {
  const [storagePath, sessionId, budgetText, mode, cacheDir] = args as [string, string, string, ResumeSample["mode"] | "parts", string];
  if (mode === "parts") {
    const t0 = performance.now();
    const store = new JsonlStore({ storagePath, fsync: "never" });
    await store.open(sessionId);
    const t1 = performance.now();
    await store.close();
    const t2 = performance.now();
    getTokenCounter("gpt-4o").countText("x");
    const parts: ResumeParts = { storeOpenMs: t1 - t0, tiktokenLoadMs: performance.now() - t2 };
    reportToParent(parts);
    return;
  }
  const budget = Number(budgetText);
  const t0 = performance.now();
  let context: ContextManager;
  let close: () => Promise<void>;
  if (mode === "createSession") {
    const config = {
      session: { context: { module: PERSISTENT_MODULE_PATH, config: { storagePath, sessionId, fsync: "always", strict: true } } },
    } as unknown as SessionConfigInput;
    const session = await createSession(config, { sessionId, cacheDir });
    context = session.context;
    close = () => session.close();
  } else {
    const opened = await openContext("context-persistent (fsync always)", { tmpRoot: storagePath, storagePath, sessionId, removeOnClose: false });
    context = opened.context;
    close = () => opened.close();
  }
  const t1 = performance.now();
  const window = await context.getMessagesForRequest(budget);
  const t2 = performance.now();
  await context.getMessagesForRequest(budget);
  const t3 = performance.now();
  const size = (context as { size?: unknown }).size;
  const stored = typeof size === "number" ? size : (await context.getMessages()).length;
  await close();
  const sample: ResumeSample = {
    mode,
    openMs: t1 - t0,
    firstWindowMs: t2 - t1,
    totalMs: t2 - t0,
    secondWindowMs: t3 - t2,
    stored,
    windowMessages: window.length,
  };
  reportToParent(sample);
}

export const resumeScenario: Scenario = {
  id: "resume",
  title: "Resume a large session",
  method:
    "A session of the benchmark history is written to disk by context-persistent itself (JSONL store, `setMessages`). " +
    `Then, ${RUNS} times, a fresh Node process opens it — \`mount()\` of context-persistent with a Coordinator (the target ` +
    "figure), and `createSession()` with a config naming context-persistent by path (adds the loader and the run-time " +
    "compilation of the module's TypeScript, cached after the first run) — and asks for the first window (128k, gpt-4o). Cold process: " +
    "tiktoken loads lazily inside the first window. The file is in the OS page cache (just written): this measures " +
    "parsing and state building, not the disk.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const prepared = await prepareSession(ctx, ctx.options.bigCount);
    const cacheDir = join(ctx.tmpRoot, "compile-cache");
    const samples: ResumeSample[] = [];
    for (const mode of ["mount", "createSession"] as const) {
      for (let i = 0; i < RUNS; i++) {
        ctx.log(`resume: ${mode} run ${i + 1}/${RUNS}`);
        samples.push(
          await runChild<ResumeSample>(ctx.entry, ["resume", prepared.storagePath, prepared.sessionId, String(ctx.options.budget), mode, cacheDir]),
        );
      }
    }
    const parts: ResumeParts[] = [];
    for (let i = 0; i < RUNS; i++) {
      ctx.log(`resume: parts run ${i + 1}/${RUNS}`);
      parts.push(await runChild<ResumeParts>(ctx.entry, ["resume", prepared.storagePath, prepared.sessionId, String(ctx.options.budget), "parts", cacheDir]));
    }
    const mounts = samples.filter((s) => s.mode === "mount");
    const median = distribution(mounts.map((s) => s.totalMs)).median;
    const creates = samples.filter((s) => s.mode === "createSession");
    const wrongCount = samples.find((s) => s.stored !== prepared.messages);
    return {
      checks: [
        check(`open ${count(prepared.messages)} messages + first window (mount, median of ${RUNS})`, ms(median), "< 1 s", median < 1000),
        check(`same through createSession (median of ${RUNS})`, ms(distribution(creates.map((s) => s.totalMs)).median), "< 1 s", undefined),
        check("all messages back after resume", wrongCount ? `${wrongCount.stored} of ${prepared.messages}` : `${count(prepared.messages)} of ${count(prepared.messages)}`, "all", !wrongCount),
      ],
      tables: [
        {
          title: `Session: ${count(prepared.messages)} messages, ${bytes(prepared.rawBytes)} of message JSON, ${bytes(prepared.fileBytes)} on disk (written in ${ms(prepared.writeMs)})`,
          columns: ["run", "mode", "open", "first window", "open + first window", "second window", "window msgs"],
          rows: samples.map((s, i) => [
            String((i % RUNS) + 1),
            s.mode,
            ms(s.openMs),
            ms(s.firstWindowMs),
            ms(s.totalMs),
            ms(s.secondWindowMs),
            String(s.windowMessages),
          ]),
        },
      ],
      notes: [
        `Parts, each alone in a fresh process (median of ${RUNS}): JsonlStore.open() of the file (read + split + JSON.parse, no context) ` +
          `${ms(distribution(parts.map((p) => p.storeOpenMs)).median)}; loading tiktoken's o200k_base (gpt-4o) ` +
          `${ms(distribution(parts.map((p) => p.tiktokenLoadMs)).median)}. ` +
          `So of "open", about ${ms(distribution(mounts.map((s) => s.openMs)).median - distribution(parts.map((p) => p.storeOpenMs)).median)} is the context's own state building, ` +
          `and of "first window", about ${ms(distribution(mounts.map((s) => s.firstWindowMs)).median - distribution(parts.map((p) => p.tiktokenLoadMs)).median)} is counting the window's messages.`,
        "createSession run 1 may include compiling modules/context-persistent from TypeScript (cached afterwards); a built package loads .js instead.",
      ],
      data: { prepared, samples, parts },
    };
  },
};
