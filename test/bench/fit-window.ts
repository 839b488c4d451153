/**
 * Scenario "fit-window" (issue 27): `fitWindow` without the kernel, as a framework user calls it,
 * beside LangChain `trimMessages` and Mastra `TokenLimiter` on the same histories and the same new
 * messages as the agent-loop turn (historyFor / turnMessages). Targets: `createWindowFitter` kept
 * across calls costs ≤ 0.2 ms median per fit() at 10,000 messages, and that median is flat from
 * the smallest to the largest N (≤ FLAT_RATIO: a call must cost O(new messages), not O(history)).
 *
 * | row | what one turn does | timed as "fit()" |
 * |---|---|---|
 * | createWindowFitter, one per shape (fit-window-shapes.ts) | convert + push the new message, then `fitter.fit(messages)` on the whole (grown) array | the fit() call alone |
 * | the same with `appendOnly: true` (the loop pushes: the fitter reads only the new items) | the same | the fit() call alone |
 * | fitWindow one-shot (amplifier Message[]) | push, then `fitWindow(messages, options)`: no state kept, O(history) | the call |
 * | LangChain trimMessages | langchain-trim.ts runLangChain (cached counts, the best case for LangChain) | — |
 * | Mastra TokenLimiter | peers.ts, in a child process killed at the deadline | — |
 *
 * Each fitter row runs in a fresh process (`--child fit-window …`): token counting caches pieces
 * of text (modules/tokens, ascii-piece-counter.ts), and the rows' new messages are the same text —
 * in one process a row would count what an earlier row already had counted.
 *
 * Every row's windows at model calls are mapped back to our messages and checked the same way:
 * windowProblems (every invariant of contracts/WINDOW.md + the provider tool-pairing check), the
 * budget counted with our gpt-4o counter. The checks run after the timed loop (O(history) each:
 * their garbage would otherwise be collected inside a timed call).
 */
import type { Message } from "../../contracts/generated/message.js";
import { getTokenCounter, type TokenCounter } from "../../modules/tokens/index.js";
import { createWindowFitter, fitWindow } from "../../modules/window/index.js";
import { FLAT_RATIO, historyFor, isModelCall, turnMessages } from "./agent-loop-turn.js";
import { SHAPES, oursShape, type Shape } from "./fit-window-shapes.js";
import { runLangChainMemo } from "./langchain-trim.js";
import { count, distribution, fullGc, ms, ratio, type Distribution } from "./measure.js";
import { mastraRunMemo, type PeerRun } from "./peers.js";
import { GENERATED_HISTORY, check, type BenchContext, type BenchOptions, type Check, type Scenario, type ScenarioResult } from "./scenario.js";
import { reportToParent, runChild } from "./child.js";
import { windowProblems } from "./tool-pairing.js";

export const FIT_TARGET_MS = 0.2;
const MODEL = "gpt-4o";

/** How a row keeps the fitter: across calls, across calls with appendOnly, or not at all (fitWindow). */
type Mode = "kept" | "append" | "once";

const WHO: Record<Mode, string> = {
  kept: "createWindowFitter (kept across calls)",
  append: "createWindowFitter, appendOnly",
  once: "fitWindow one-shot",
};

interface FitRun {
  who: string;
  mode: Mode;
  shape: string;
  n: number;
  stored: number;
  turns: number;
  /** The fit() call alone. */
  fit: Distribution;
  /** Converting and pushing the new message, then fit(): what the caller's loop pays. */
  turn: Distribution;
  /** The loop's yield after fit() (its model call's wait): the fitter's idle work, off the call. */
  idle: Distribution;
  /** The first fit() over the whole history (counts every message once). */
  firstMs: number;
  checked: number;
  broken: number;
  overBudget: number;
  firstProblem?: string;
  windowMessages: number;
  windowTokens: number;
}

async function runFitter(ctx: BenchContext, shape: Shape, n: number, counter: TokenCounter, mode: Mode): Promise<FitRun> {
  const { warmup, turns, budget } = ctx.options;
  const keep = mode !== "once";
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `fit-${mode}-${shape.format}-${n}`);
  const opened = shape.open(history);
  const options = { model: MODEL, budget, format: shape.format };
  const fitter = keep ? createWindowFitter({ ...options, appendOnly: mode === "append" }) : undefined;
  const fit = (messages: unknown[]) => (fitter ? fitter.fit(messages) : fitWindow(messages, options)) as unknown[];
  fullGc();
  const f0 = performance.now();
  fit(opened.messages);
  const firstMs = performance.now() - f0;
  const fitTimes: number[] = [];
  const turnTimes: number[] = [];
  const toCheck: { at: number; window: unknown[] }[] = [];
  const spent = performance.now() + ctx.options.langchainBudgetS * 1000;
  const idleTimes: number[] = [];
  for (let i = 0; i < stream.length; i++) {
    const t0 = performance.now();
    opened.add(stream[i]!);
    const t1 = performance.now();
    const window = fit(opened.messages);
    const t2 = performance.now();
    // The model call an agent loop awaits next: the loop yields to the event loop once (the
    // fitter's idle work runs there — counting what this call priced by bounds), timed apart.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const t3 = performance.now();
    if (i < warmup) continue;
    fitTimes.push(t2 - t1);
    turnTimes.push(t2 - t0);
    idleTimes.push(t3 - t2);
    if (isModelCall(stream, i)) toCheck.push({ at: i, window });
    // The one-shot row is O(history) per call: bounded in time like the peers (fewer turns at large N).
    if (!keep && performance.now() > spent && fitTimes.length >= 5) break;
  }
  let broken = 0;
  let overBudget = 0;
  let firstProblem: string | undefined;
  let last: Message[] = [];
  for (const { at, window } of toCheck) {
    last = opened.toOurs(window);
    if (counter.countRequest(last) > budget) overBudget++;
    const problems = windowProblems([...history, ...stream.slice(0, at + 1)], last, budget, counter);
    if (problems.length) {
      broken++;
      firstProblem ??= `turn ${at}: ${problems[0]}`;
    }
  }
  return {
    who: WHO[mode],
    mode,
    shape: shape.name,
    n,
    stored: history.length,
    turns: fitTimes.length,
    fit: distribution(fitTimes),
    turn: distribution(turnTimes),
    idle: distribution(idleTimes),
    firstMs,
    checked: toCheck.length,
    broken,
    overBudget,
    ...(firstProblem === undefined ? {} : { firstProblem }),
    windowMessages: last.length,
    windowTokens: counter.countRequest(last),
  };
}

/** Child side: `--child fit-window <shape name> <n> <mode> <options JSON>` (a fresh process per row, see the file's comment). */
export async function fitWindowChild(args: string[]): Promise<void> {
  const [shapeName, nText, mode, optionsText] = args as [string, string, Mode, string];
  const options = JSON.parse(optionsText) as BenchOptions;
  const ctx = { options, entry: "", tmpRoot: ".", memo: new Map(), log: () => undefined } as unknown as BenchContext;
  const shape = SHAPES.find((s) => s.name === shapeName);
  if (!shape || !(mode in WHO)) throw new Error(`fit-window child: unknown shape ${shapeName} or mode ${mode}`);
  const counter = getTokenCounter(MODEL);
  // tiktoken's first use in the process loads its encoder: not the first fit()'s cost.
  counter.countMessage({ role: "user", content: "warm up the encoder" });
  reportToParent(await runFitter(ctx, shape, Number(nText), counter, mode));
}

export const fitWindowScenario: Scenario = {
  id: "fit-window",
  data: GENERATED_HISTORY,
  title: "fitWindow as a drop-in: createWindowFitter over framework shapes beside LangChain trimMessages and Mastra TokenLimiter",
  method:
    "Same histories and new messages as the agent-loop turn (the system prompt + the last ≈N messages of one seeded session). " +
    "`createWindowFitter({ model: \"gpt-4o\", budget: 128000, format })` is kept across calls, one per message shape a user holds, " +
    "and again with `appendOnly: true` (the loop only pushes; the fitter reads only the new items), each row in a fresh process (counting caches pieces of text, and every row's new messages are the same text): " +
    "ours (amplifier Message[]), AI SDK ModelMessage[] and LangChain BaseMessage[] (converted with the converters the peers get; " +
    "the history once, each new message inside the timed turn). One turn = convert + push the new message, then `fitter.fit(messages)` " +
    "with the whole grown array, then one yield to the event loop (the model call's wait, where the fitter's idle work runs; timed apart); 'fit()' times the call alone, 'turn' adds the conversion. The first fit() over the history is timed " +
    "apart. `fitWindow` one-shot (no state kept) is the same call without the fitter. LangChain `trimMessages` (cached counts) and " +
    "Mastra `TokenLimiter` run as in their own scenarios. Every row's windows at model calls are mapped back to our messages and " +
    "checked after the timed loop: every invariant of contracts/WINDOW.md, the provider tool-pairing check, and the budget counted " +
    "with our gpt-4o counter.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const counter = getTokenCounter(MODEL);
    const { sizes } = ctx.options;
    const targetN = sizes.includes(10_000) ? 10_000 : sizes[sizes.length - 1]!;
    const rows: string[][] = [];
    const checks: Check[] = [];
    const notes: string[] = [];
    const runs: FitRun[] = [];
    // tiktoken's first use in the process loads its encoder: not the first fit()'s cost.
    counter.countMessage({ role: "user", content: "warm up the encoder" });
    for (const n of sizes) {
      const kept: FitRun[] = [];
      const plan: [Shape, Mode][] = [...SHAPES.flatMap((s) => [[s, "kept"], [s, "append"]] as [Shape, Mode][]), [oursShape, "once"]];
      for (const [shape, mode] of plan) {
        const who = WHO[mode];
        const keep = mode === "kept";
        ctx.log(`fit-window: ${who} over ${shape.name} at N=${count(n)}`);
        let run: FitRun;
        try {
          run = await runChild<FitRun>(ctx.entry, ["fit-window", shape.name, String(n), mode, JSON.stringify(ctx.options)], { heapMb: 8192 });
        } catch (error) {
          rows.push([count(n), who, shape.name, "error", "—", "—", "—", "—", "—", "—", "—"]);
          notes.push(`${who} over ${shape.name} at N=${count(n)} failed: ${(error as Error).message}`);
          ctx.log(`  ERROR ${(error as Error).message}`);
          continue;
        }
        if (keep) kept.push(run);
        runs.push(run);
        ctx.log(`  fit() median ${ms(run.fit.median)}, turn ${ms(run.turn.median)}, first fit ${ms(run.firstMs)}; broken ${run.broken} of ${run.checked}`);
        rows.push([
          `${count(n)} (${count(run.stored)})`,
          run.who,
          run.shape,
          String(run.turns),
          ms(run.fit.median),
          ms(run.fit.p99),
          ms(run.turn.median),
          ms(run.firstMs),
          `${run.broken} of ${run.checked}`,
          `${run.overBudget} of ${run.checked}`,
          `${count(run.windowTokens)} / ${run.windowMessages}`,
        ]);
        if (run.firstProblem) notes.push(`${run.who} over ${run.shape} at N=${count(n)}: first broken window: ${run.firstProblem}`);
      }
      const reference = kept[0];
      ctx.log(`fit-window: LangChain trimMessages at N=${count(n)}`);
      const lc = await runLangChainMemo(ctx, n, counter);
      const lcMedian = lc.total?.median ?? lc.aborted?.estimatedMs ?? Number.NaN;
      const approx = lc.aborted ? "≈ " : "";
      rows.push([
        count(n),
        "LangChain trimMessages",
        "LangChain BaseMessage[]",
        lc.aborted ? `aborted at ${ms(lc.aborted.elapsedMs)}` : String(lc.turns),
        "—",
        lc.total ? ms(lc.total.p99) : "—",
        `${approx}${ms(lcMedian)}`,
        "—",
        lc.aborted ? "—" : `${lc.invalidWindows} of ${lc.checkedWindows}`,
        "—",
        lc.windowTokens === undefined ? "—" : `${count(lc.windowTokens)} / ${lc.windowMessages}`,
      ]);
      const lcShape = kept.find((r) => r.shape.startsWith("LangChain")) ?? reference;
      if (lcShape) checks.push(check(`N=${count(n)}: LangChain trimMessages turn / fitter turn over BaseMessage[]`, `${approx}${ratio(lcMedian / lcShape.turn.median, 0)} (${approx}${ms(lcMedian)} vs ${ms(lcShape.turn.median)})`, "report", undefined));
      ctx.log(`fit-window: Mastra TokenLimiter at N=${count(n)}`);
      const mastra = await mastraRunMemo(ctx, "Mastra TokenLimiter", n);
      if (mastra.error !== undefined) {
        rows.push([count(n), "Mastra TokenLimiter", "AI SDK 4 CoreMessage[]", "error", "—", "—", "—", "—", "—", "—", "—"]);
        notes.push(`Mastra TokenLimiter at N=${count(n)}: ${mastra.error}`);
      } else {
        const m = mastra.run;
        rows.push(mastraRow(n, m));
        const aiShape = kept.find((r) => r.shape.startsWith("AI SDK")) ?? reference;
        const label = `N=${count(n)}: Mastra TokenLimiter turn / fitter turn over ModelMessage[]`;
        if (m.abortedMs !== undefined) checks.push(check(label, `not measured: its child process was killed at the deadline, ${ms(m.abortedMs)} after it started (loading Mastra and the history included)`, "report", undefined));
        else if (aiShape) checks.push(check(label, `${ratio(m.total.median / aiShape.turn.median, 0)} (${ms(m.total.median)} vs ${ms(aiShape.turn.median)})`, "report", undefined));
        if (m.checked) checks.push(check(`N=${count(n)}: Mastra TokenLimiter windows breaking an invariant`, `${m.broken} of ${m.checked}`, "report", undefined));
      }
    }
    for (const shape of SHAPES) {
      for (const mode of ["kept", "append"] as const) {
        const run = runs.find((r) => r.n === targetN && r.shape === shape.name && r.mode === mode);
        const label = `${WHO[mode]} ≤ ${FIT_TARGET_MS} ms median at ${count(targetN / 1000)}k: fit() over ${shape.name}`;
        if (!run) {
          checks.push({ ...check(label, "not measured (error, see notes)", `≤ ${FIT_TARGET_MS} ms`, false), status: "ERROR" });
          continue;
        }
        checks.push(check(label, ms(run.fit.median), `≤ ${FIT_TARGET_MS} ms`, run.fit.median <= FIT_TARGET_MS));
        if (mode === "kept") checks.push(check(`N=${count(targetN)}: fitter turn over ${shape.name} (conversion + push + fit())`, ms(run.turn.median), "report", undefined));
        checks.push(check(`N=${count(targetN)}: ${WHO[mode]} over ${shape.name}: fit() p95, and the idle work after it (median / p95)`, `${ms(run.fit.p95)}; idle ${ms(run.idle.median)} / ${ms(run.idle.p95)}`, "report", undefined));
      }
    }
    // O(new) per call: with appendOnly, the median fit() at the largest N within FLAT_RATIO of the
    // smallest (as the agent-loop turn). Without it a call also compares every item given by
    // reference (≈ 5–10 ns an item, window-fitter.ts): reported, not held to flatness.
    const smallest = sizes[0]!;
    const largest = sizes[sizes.length - 1]!;
    for (const shape of SHAPES) {
      for (const mode of ["append", "kept"] as const) {
        const at = (n: number) => runs.find((r) => r.n === n && r.shape === shape.name && r.mode === mode);
        const lo = at(smallest);
        const hi = at(largest);
        if (!lo || !hi || lo === hi) continue;
        const r = hi.fit.median / lo.fit.median;
        const label = `${WHO[mode]} over ${shape.name}: flatness t(${count(largest)})/t(${count(smallest)}) of fit() medians`;
        const figure = `${ratio(r)} (${ms(hi.fit.median)} vs ${ms(lo.fit.median)})`;
        checks.push(mode === "append" ? check(label, figure, `≤ ${FLAT_RATIO}× (flat)`, r <= FLAT_RATIO) : check(label, figure, "report", undefined));
      }
    }
    for (const run of runs.filter((r) => r.n === targetN && r.mode === "once")) {
      checks.push(check(`N=${count(targetN)}: ${run.who} over ${run.shape} (no state kept)`, ms(run.fit.median), "report", undefined));
    }
    for (const shape of SHAPES) {
      const mine = runs.filter((r) => r.shape === shape.name);
      const broken = mine.reduce((s, r) => s + r.broken, 0);
      const checked = mine.reduce((s, r) => s + r.checked, 0);
      const label = `fitWindow over ${shape.name}: model-call windows violating an invariant (all N, kept and one-shot)`;
      checks.push(checked === 0 ? { ...check(label, "none checked (error, see notes)", "0", false), status: "ERROR" } : check(label, `${broken} of ${checked}`, "0", broken === 0));
    }
    return {
      checks,
      tables: [
        {
          title: "Per-call time and windows: fitWindow / createWindowFitter per shape, LangChain trimMessages, Mastra TokenLimiter (budget 128,000, gpt-4o)",
          columns: ["N (exact)", "who", "messages given as", "turns", "fit() median", "fit() p99", "turn median (conversion + push + call)", "first fit()", "windows breaking an invariant", "over budget (our count)", "last window tokens / msgs"],
          rows,
        },
      ],
      notes: [
        "'fit()' is the call alone; 'turn' adds converting the new message into the shape and pushing it (what a framework loop pays with the fitter as a drop-in). LangChain and Mastra have no separate call time: their column is the turn.",
        "After each call the loop yields to the event loop once, as an agent loop does while it awaits its model call; the fitter's idle work runs there (counting the new messages that a call priced by upper bounds instead of counting them: window-assembler.ts), timed apart as 'idle' — off the call, not free.",
        "The fitter's windows come back in the shape they were given (the kept items are the caller's objects); the bench maps them to our messages to check them (test/bench/fit-window-shapes.ts: a message the fitter made is marked synthetic, a changed one is marked truncated only when its text carries the truncation marker).",
        "LangChain trimMessages: counts cached per message id (the best case), a call past the deadline aborted and extrapolated (≈), as in the langchain scenario. Mastra TokenLimiter (0.24, the last line on Node 20) counts with js-tiktoken; in a child process killed at the deadline, as in the peers scenario.",
        ...notes,
      ],
      data: { runs },
    };
  },
};

function mastraRow(n: number, m: PeerRun): string[] {
  if (m.abortedMs !== undefined) return [count(n), m.peer, "AI SDK 4 CoreMessage[]", `killed at ${ms(m.abortedMs)} (deadline; set-up included)`, "—", "—", "—", "—", "—", "—", "—"];
  return [count(n), m.peer, "AI SDK 4 CoreMessage[]", String(m.turns), "—", ms(m.total.p99), ms(m.total.median), "—", `${m.broken} of ${m.checked}`, `${m.overBudget} of ${m.checked}`, `— / ${m.windowMessages}`];
}
