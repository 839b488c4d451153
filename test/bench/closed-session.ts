/**
 * Scenario "closed-session" (issue 31, done-when 3): a closed session leaves no CPU work behind.
 * In a fresh process, a large session is opened (context-persistent, the resume scenario's
 * session of `bigCount` messages), used for a few turns and closed; right after, a new session of
 * 1,000 messages runs its first turns. The control is the same new session in a fresh process
 * with nothing before it. Target: the new session's turns after the close ≤ 1.3× the control's.
 * Packing, index building and any other idle work belong to their session: close() stops and
 * awaits them (issue 31 item 1); before that, a new session right after closing a 100k one ran at
 * 17.9 ms a turn for its first 50 turns against 0.79 ms without it.
 */
import type { Message } from "../../contracts/generated/message.js";
import { historyFor, turnMessages } from "./agent-loop-turn.js";
import { reportToParent, runChild } from "./child.js";
import { openContext } from "./contexts.js";
import { count, distribution, ms, ratio, type Distribution } from "./measure.js";
import { prepareSession } from "./resume.js";
import { GENERATED_HISTORY, check, type BenchContext, type BenchOptions, type Check, type Scenario, type ScenarioResult } from "./scenario.js";

/** Turns of the new session measured (the figure: its first 50). */
const NEW_TURNS = 50;
const NEW_SIZE = 1_000;
const RUNS = 3;
export const CLOSED_TARGET = 1.3;

interface ClosedSample {
  mode: "after" | "control";
  /** The large session: open + first window, its turns, close(). */
  bigOpenMs: number;
  bigCloseMs: number;
  /** The new session's turns (addMessage + getMessagesForRequest), in order. */
  turns: Distribution;
  meanMs: number;
}

/** Child side: `--child closed-session <mode> <storagePath> <sessionId> <options JSON> <tmpRoot>`. */
export async function closedSessionChild(args: string[]): Promise<void> {
  const [mode, storagePath, sessionId, optionsText, tmpRoot] = args as ["after" | "control", string, string, string, string];
  const options = JSON.parse(optionsText) as BenchOptions;
  const ctx = { options, entry: "", tmpRoot, memo: new Map(), log: () => undefined } as unknown as BenchContext;
  // Both modes build the same new session's messages before anything is timed.
  const history = historyFor(ctx, NEW_SIZE);
  const stream = turnMessages(ctx, `closed-${mode}`).slice(0, NEW_TURNS);
  let bigOpenMs = 0;
  let bigCloseMs = 0;
  if (mode === "after") {
    const t0 = performance.now();
    const big = await openContext("context-persistent (fsync never)", { tmpRoot, storagePath, sessionId, removeOnClose: false });
    await big.context.getMessagesForRequest(options.budget);
    bigOpenMs = performance.now() - t0;
    // A few turns of use, then close — the new session starts the moment close() resolves.
    for (const m of turnMessages(ctx, "closed-big").slice(0, 5)) {
      await big.context.addMessage(m);
      await big.context.getMessagesForRequest(options.budget);
    }
    const c0 = performance.now();
    await big.close();
    bigCloseMs = performance.now() - c0;
  }
  const fresh = await openContext("context-persistent (fsync never)", { tmpRoot });
  try {
    await fresh.context.setMessages(history);
    await fresh.context.getMessagesForRequest(options.budget);
    const times: number[] = [];
    for (const m of stream as Message[]) {
      const t0 = performance.now();
      await fresh.context.addMessage(m);
      await fresh.context.getMessagesForRequest(options.budget);
      times.push(performance.now() - t0);
    }
    const sample: ClosedSample = { mode, bigOpenMs, bigCloseMs, turns: distribution(times), meanMs: times.reduce((s, t) => s + t, 0) / times.length };
    reportToParent(sample);
  } finally {
    await fresh.close();
  }
}

export const closedSessionScenario: Scenario = {
  id: "closed-session",
  data: GENERATED_HISTORY,
  title: "A closed session leaves no CPU work behind: a new session's turns right after closing a large one",
  method:
    `In a fresh process: context-persistent (fsync never) opens the resume scenario's session (bigCount messages, written by context-persistent), ` +
    `asks for a window, runs 5 turns and closes; the moment close() resolves, a new context-persistent session is given ${count(NEW_SIZE)} messages ` +
    `(setMessages, one window) and runs ${NEW_TURNS} turns (addMessage + getMessagesForRequest at the run's budget), each timed. ` +
    `The control is the same new session in a fresh process with nothing before it. ${RUNS} runs of each, interleaved (after, control, after, …); ` +
    `the figure is the median over runs of the mean turn time (work left behind shows in the mean, not only in the median) and of the median turn.`,
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const prepared = await prepareSession(ctx, ctx.options.bigCount);
    const samples: ClosedSample[] = [];
    for (let r = 0; r < RUNS; r++) {
      for (const mode of ["after", "control"] as const) {
        ctx.log(`closed-session: run ${r + 1}/${RUNS}, ${mode}`);
        samples.push(await runChild<ClosedSample>(ctx.entry, ["closed-session", mode, prepared.storagePath, prepared.sessionId, JSON.stringify(ctx.options), ctx.tmpRoot], { heapMb: 8192 }));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const of = (mode: ClosedSample["mode"], pick: (s: ClosedSample) => number) => median(samples.filter((s) => s.mode === mode).map(pick));
    const afterMean = of("after", (s) => s.meanMs);
    const controlMean = of("control", (s) => s.meanMs);
    const afterMedian = of("after", (s) => s.turns.median);
    const controlMedian = of("control", (s) => s.turns.median);
    const checks: Check[] = [
      check(
        `issue 31: a new ${count(NEW_SIZE)}-message session's first ${NEW_TURNS} turns right after closing a ${count(prepared.messages)}-message session / the same without it (mean turn, median of ${RUNS})`,
        `${ratio(afterMean / controlMean)} (${ms(afterMean)} vs ${ms(controlMean)})`,
        `≤ ${CLOSED_TARGET}×`,
        afterMean / controlMean <= CLOSED_TARGET,
      ),
      check(`the same, median turn`, `${ratio(afterMedian / controlMedian)} (${ms(afterMedian)} vs ${ms(controlMedian)})`, "report", undefined),
      check(`the large session: open + first window / close() (median of ${RUNS})`, `${ms(of("after", (s) => s.bigOpenMs))} / ${ms(of("after", (s) => s.bigCloseMs))}`, "report", undefined),
    ];
    return {
      checks,
      tables: [
        {
          title: "Each run (interleaved)",
          columns: ["run", "before the new session", "new session: mean turn", "median turn", "p95 turn", "large session open + window / close"],
          rows: samples.map((s, i) => [String(Math.floor(i / 2) + 1), s.mode === "after" ? `closed a ${count(prepared.messages)}-message session` : "nothing (control)", ms(s.meanMs), ms(s.turns.median), ms(s.turns.p95), s.mode === "after" ? `${ms(s.bigOpenMs)} / ${ms(s.bigCloseMs)}` : "—"]),
        },
      ],
      notes: [],
    };
  },
};
