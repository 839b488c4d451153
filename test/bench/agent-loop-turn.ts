/**
 * Scenario 1 — the agent-loop turn: a context holding N messages gets one new message and is asked
 * for a window (128k budget, gpt-4o counting). Target: ≤ 1 ms median at N = 10,000, flat from
 * 1,000 to 100,000 messages (the cost must follow the new message and the window, not the history).
 */
import { execFileSync } from "node:child_process";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Message } from "../../contracts/generated/message.js";
import { getTokenCounter } from "../../modules/tokens/index.js";
import { CONTEXT_KINDS, openContext, type ContextKind } from "./contexts.js";
import { generateHistory } from "./history-generator.js";
import { count, distribution, fullGc, ms, ratio, type Distribution } from "./measure.js";
import { GENERATED_HISTORY, check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";
import { checkWindowsAt } from "./tool-pairing.js";

export const HISTORY_SEED = 20261122;
export const TURN_SEED = 4242;
/** t(largest N) / t(smallest N) at or below this counts as flat (the bench's criterion). */
export const FLAT_RATIO = 1.5;
export const TURN_TARGET_MS = 1;

export interface TurnRun {
  kind: ContextKind;
  /** Nominal size; `stored` is the exact number of messages before the first turn. */
  n: number;
  stored: number;
  setupMs: number;
  total: Distribution;
  add: Distribution;
  window: Distribution;
  windowMessages: Distribution;
  /** Counting each new message alone with a cold cache (tiktoken + counting rules): the floor inside a turn. */
  tokenizeNew: Distribution;
  /** Tokens of the last window (gpt-4o, countRequest). */
  lastWindowTokens: number;
  /** Measured turns whose window broke tool pairing (bench check, tool-pairing.ts). */
  invalidWindows: number;
  /** Measured turns at which a model call happens (the next message is the assistant's): the windows checked. */
  checkedWindows: number;
  firstProblem?: string;
}

/** A window is sent to a model only before an assistant message (as in runReplay). */
export function isModelCall(stream: readonly Message[], i: number): boolean {
  const next = stream[i + 1];
  return next === undefined || next.role === "assistant";
}

let runSeq = 0;

/**
 * The history of size N for this run: the system prompt plus the last messages of ONE long
 * generated session (seeded), starting at a user turn — so every N ends with the very same tail and
 * the windows of every N hold the same messages; only the amount of older history differs. The
 * size is N rounded up to the user turn (a few messages more; the tables give the exact size).
 */
export function historyFor(ctx: BenchContext, n: number): Message[] {
  const key = `history:${n}`;
  let history = ctx.memo.get(key) as Message[] | undefined;
  if (!history) {
    const largest = Math.max(...ctx.options.sizes, n);
    let session = ctx.memo.get(`session-source:${largest}`) as Message[] | undefined;
    if (!session) {
      session = generateHistory({ count: largest, seed: HISTORY_SEED, idPrefix: "h" });
      ctx.memo.set(`session-source:${largest}`, session);
    }
    let start = Math.max(1, session.length - (n - 1));
    while (start > 1 && !isUserTurn(session[start]!)) start--;
    history = [session[0]!, ...session.slice(start)];
    ctx.memo.set(key, history);
  }
  return history;
}

function isUserTurn(m: Message): boolean {
  return m.role === "user" && (typeof m.content === "string" || (m.content ?? []).some((b) => b.type !== "tool_result"));
}

/** New messages of the measured turns: same contents for every run, fresh ids (no shared cache entries). */
export function turnMessages(ctx: BenchContext, tag: string): Message[] {
  const { warmup, turns } = ctx.options;
  return generateHistory({ count: warmup + turns, seed: TURN_SEED, idPrefix: `t${tag}`, withSystem: false });
}

export async function runTurns(ctx: BenchContext, kind: ContextKind, n: number): Promise<TurnRun> {
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `${++runSeq}`);
  const { warmup, budget } = ctx.options;
  const counter = getTokenCounter("gpt-4o");
  fullGc();
  const opened = await openContext(kind, { tmpRoot: ctx.tmpRoot });
  try {
    const setupStart = performance.now();
    await opened.context.setMessages(history);
    const setupMs = performance.now() - setupStart;
    // The setup wrote the whole history (persistent kinds): let the kernel write it back now, so the
    // turns are not measured against the writeback of data they did not write.
    if (opened.storagePath) flushDirtyPages();
    const total: number[] = [];
    const add: number[] = [];
    const win: number[] = [];
    const sizes: number[] = [];
    // Checked after the timed loop: the checks are O(history) and their garbage would be collected
    // during the next timed turn.
    const toCheck: { at: number; window: Message[] }[] = [];
    let lastWindow: Message[] = [];
    for (let i = 0; i < stream.length; i++) {
      const message = stream[i]!;
      const t0 = performance.now();
      await opened.context.addMessage(message);
      const t1 = performance.now();
      const window = await opened.context.getMessagesForRequest(budget);
      const t2 = performance.now();
      if (i < warmup) continue;
      total.push(t2 - t0);
      add.push(t1 - t0);
      win.push(t2 - t1);
      sizes.push(window.length);
      lastWindow = window;
      if (isModelCall(stream, i)) toCheck.push({ at: i, window });
    }
    const { invalid, firstProblem } = checkWindowsAt(history, stream, toCheck, budget, counter);
    const checked = toCheck.length;
    toCheck.length = 0;
    // What tiktoken alone costs for each new message (a copy with a fresh id: a cache miss), untimed above.
    const tokenize: number[] = [];
    for (const m of stream.slice(warmup)) {
      const probe = { ...m, metadata: { ...m.metadata, id: `${m.metadata?.id}-probe` } };
      const t0 = performance.now();
      counter.countMessage(probe);
      tokenize.push(performance.now() - t0);
    }
    return {
      kind,
      n,
      stored: history.length,
      setupMs,
      total: distribution(total),
      add: distribution(add),
      window: distribution(win),
      windowMessages: distribution(sizes),
      tokenizeNew: distribution(tokenize),
      lastWindowTokens: counter.countRequest(lastWindow),
      invalidWindows: invalid,
      checkedWindows: checked,
      ...(firstProblem === undefined ? {} : { firstProblem }),
    };
  } finally {
    await opened.close();
  }
}

/** `sync`: write back every dirty page of the machine (best effort; the bench runs on Linux). */
function flushDirtyPages(): void {
  try {
    execFileSync("sync", { stdio: "ignore" });
  } catch {
    // no sync(1): the turns then share the disk with the setup's writeback
  }
}

/** Median fsync latency of a small append on the bench's scratch disk: the floor of fsync "always". */
export async function fsyncFloor(ctx: BenchContext, samples = 200): Promise<Distribution> {
  const file = join(ctx.tmpRoot, `fsync-probe-${process.pid}.jsonl`);
  const line = Buffer.from(`${JSON.stringify({ role: "user", content: "x".repeat(900) })}\n`);
  const fd = openSync(file, "a");
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      writeSync(fd, line);
      fsyncSync(fd);
      times.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    await rm(file, { force: true });
  }
  return distribution(times);
}

export const agentLoopScenario: Scenario = {
  id: "agent-loop",
  data: GENERATED_HISTORY,
  title: "Agent-loop turn",
  method:
    "A context module is filled with N messages of a seeded tool-using history (test/bench/history-generator.ts; " +
    "OpenAI tool_calls and Anthropic blocks, sizes like examples/sample-session.jsonl) through `setMessages`. Every N is the system prompt + the last ≈N messages of the same generated session (cut at a " +
    "user turn), so all N share the same recent tail and the same windows: only the older history grows. Then warm-up + measured " +
    "turns; one turn = `addMessage(new message)` + `getMessagesForRequest(128000)` (gpt-4o counting); " +
    "the new messages continue the session (same contents for every module and N, fresh ids so no run reuses another's " +
    "token-cache entries). Each new message is tokenized once inside its turn: that tiktoken cost is part of the figure. " +
    "Every measured window requested where a model call happens (the next message of the session is the assistant's) is " +
    "checked outside the timed region with `checkWindowInvariants` (testing/window-invariants.ts) and the bench's own " +
    "tool-pairing check (test/bench/tool-pairing.ts).",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const { sizes } = ctx.options;
    const runs: TurnRun[] = [];
    const floor = await fsyncFloor(ctx);
    for (const kind of CONTEXT_KINDS) {
      for (const n of sizes) {
        ctx.log(`agent-loop: ${kind}, N=${count(n)}`);
        const run = await runTurns(ctx, kind, n);
        runs.push(run);
        ctx.memo.set(`turns:${kind}:${n}`, run);
        ctx.log(`  median ${ms(run.total.median)} (add ${ms(run.add.median)}, window ${ms(run.window.median)}), p99 ${ms(run.total.p99)}, setup ${ms(run.setupMs)}`);
      }
    }
    const checks: Check[] = [];
    const targetN = sizes.includes(10_000) ? 10_000 : sizes[sizes.length - 1]!;
    const smallest = sizes[0]!;
    const largest = sizes[sizes.length - 1]!;
    for (const kind of CONTEXT_KINDS) {
      const at = runs.find((r) => r.kind === kind && r.n === targetN);
      const lo = runs.find((r) => r.kind === kind && r.n === smallest);
      const hi = runs.find((r) => r.kind === kind && r.n === largest);
      const fsyncNote = kind.includes("always") ? ` (includes one fsync; disk floor ${ms(floor.median)})` : "";
      if (at) checks.push(check(`${kind}: turn median at N=${count(targetN)}${fsyncNote}`, ms(at.total.median), `≤ ${TURN_TARGET_MS} ms`, at.total.median <= TURN_TARGET_MS));
      if (lo && hi && lo !== hi) {
        const r = hi.total.median / lo.total.median;
        checks.push(check(`${kind}: flatness t(${count(largest)})/t(${count(smallest)}) of medians`, ratio(r), `≤ ${FLAT_RATIO}× (flat)`, r <= FLAT_RATIO));
      }
      const invalid = runs.filter((r) => r.kind === kind).reduce((s, r) => s + r.invalidWindows, 0);
      const measured = runs.filter((r) => r.kind === kind).reduce((s, r) => s + r.checkedWindows, 0);
      checks.push(check(`${kind}: model-call windows violating an invariant`, `${invalid} of ${measured}`, "0", invalid === 0));
    }
    return {
      checks,
      tables: [
        {
          title: "Per-turn time (addMessage + getMessagesForRequest(128000))",
          columns: ["Module", "N (exact)", "turns", "median", "p90", "p99", "max", "add median", "window median", "tiktoken of the new message alone (median)", "window msgs (median)", "last window tokens", "setMessages(N)"],
          rows: runs.map((r) => [
            r.kind,
            `${count(r.n)} (${count(r.stored)})`,
            String(r.total.n),
            ms(r.total.median),
            ms(r.total.p90),
            ms(r.total.p99),
            ms(r.total.max),
            ms(r.add.median),
            ms(r.window.median),
            ms(r.tokenizeNew.median),
            String(r.windowMessages.median),
            count(r.lastWindowTokens),
            ms(r.setupMs),
          ]),
        },
        {
          title: "Disk floor of fsync \"always\": write + fsync of one ~1 KB line on the scratch disk",
          columns: ["samples", "median", "p90", "p99"],
          rows: [[String(floor.n), ms(floor.median), ms(floor.p90), ms(floor.p99)]],
        },
      ],
      notes: [
        `fsync "always" makes each addMessage wait for the disk (floor above); that cost is the disk's, not the window's — compare the "window median" columns.`,
        `Flatness criterion: median at the largest N within ${FLAT_RATIO}× of the median at the smallest N (an O(history) turn would grow ~${Math.round(largest / smallest)}×).`,
        ...runs.filter((r) => r.firstProblem).map((r) => `${r.kind} N=${count(r.n)}: first broken window: ${r.firstProblem}`),
      ],
      data: { runs, fsyncFloor: floor },
    };
  },
};
