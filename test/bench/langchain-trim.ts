/**
 * Scenario 4 — LangChain.js `trimMessages` on the same histories, in the same run, counted the same
 * way: a baseline for the agent-loop turn, and a check of whether its windows keep tool pairing.
 *
 * Fairness: LangChain gets the best counter a user could write — every message counted once with
 * OUR gpt-4o counter (the same tiktoken rules as the context modules), then served from a Map by
 * message id, so per call it only sums cached numbers. The conversion to LangChain messages is done
 * once for the history; each turn converts its one new message (inside the timed region, like our
 * addMessage). A call that runs past a deadline is aborted (the counter throws) and its total is
 * extrapolated from the counter calls done against the calls the call still needed, labelled as an
 * estimate.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import type { ContentBlock, Message } from "../../contracts/generated/message.js";
import { getTokenCounter, type TokenCounter } from "../../modules/tokens/index.js";
import { readFile } from "node:fs/promises";
import { historyFor, isModelCall, runTurns, turnMessages, type TurnRun } from "./agent-loop-turn.js";
import { openContext } from "./contexts.js";
import { SAMPLE_TRANSCRIPT } from "./replay.js";
import { count, distribution, fullGc, ms, ratio, type Distribution } from "./measure.js";
import { SAMPLE_SESSION, GENERATED_HISTORY, check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";
import { windowProblems } from "./tool-pairing.js";

/** One LangChain message and the slice of our message it stands for (counted and checked as that). */
interface Converted {
  lc: BaseMessage;
  /** What this LangChain message is, as one of our messages (a part, for split Anthropic results). */
  as: Message;
  /** Id of the message it came from (parts of one message share it). */
  origin: string;
  /** The message it came from, and into how many LangChain messages it was split. */
  original: Message;
  parts: number;
}

class DeadlineExceeded extends Error {}

export interface LangChainRun {
  n: number;
  turns: number;
  total?: Distribution;
  /** When the first measured call was aborted: its elapsed time and the extrapolated total. */
  aborted?: { elapsedMs: number; estimatedMs: number; callsDone: number; callsNeeded: number };
  invalidWindows: number;
  /** Windows requested where a model call happens (the next message is the assistant's). */
  checkedWindows: number;
  firstProblem?: string;
  windowMessages?: number;
  windowTokens?: number;
  prefillMs: number;
}

export function toLangChain(message: Message): Converted[] {
  const converted = convert(message);
  return converted.map((c) => ({ ...c, original: message, parts: converted.length }));
}

function convert(message: Message): Omit<Converted, "original" | "parts">[] {
  const id = message.metadata?.id ?? "";
  const text = (content: Message["content"]): string =>
    typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
  switch (message.role) {
    case "system":
    case "developer":
      return [{ lc: new SystemMessage({ content: text(message.content), id }), as: message, origin: id }];
    case "tool":
      return [{
        lc: new ToolMessage({ content: text(message.content), tool_call_id: message.tool_call_id ?? "", ...(message.name ? { name: message.name } : {}), id }),
        as: message,
        origin: id,
      }];
    case "assistant": {
      const blocks = Array.isArray(message.content) ? message.content : undefined;
      const toolCalls = message.tool_calls
        ? message.tool_calls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) as Record<string, unknown>, type: "tool_call" as const }))
        : (blocks ?? []).flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, args: b.input, type: "tool_call" as const }] : []));
      const content = blocks ? (blocks as unknown as Record<string, unknown>[]) : (message.content ?? "");
      const fields = { content, id, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
      return [{ lc: new AIMessage(fields as ConstructorParameters<typeof AIMessage>[0]), as: message, origin: id }];
    }
    default: {
      // user: plain text, or Anthropic blocks. LangChain carries tool results as ToolMessages, one per result.
      if (!Array.isArray(message.content)) return [{ lc: new HumanMessage({ content: message.content ?? "", id }), as: message, origin: id }];
      const out: Omit<Converted, "original" | "parts">[] = [];
      const others: ContentBlock[] = [];
      for (const [k, block] of message.content.entries()) {
        if (block.type === "tool_result") {
          const resultText = typeof block.content === "string" ? block.content : (block.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
          out.push({
            lc: new ToolMessage({ content: resultText, tool_call_id: block.tool_use_id, id: `${id}#${k}`, ...(block.is_error ? { status: "error" as const } : {}) }),
            as: { role: "user", content: [block], metadata: { id: `${id}#${k}` } },
            origin: id,
          });
        } else others.push(block);
      }
      if (others.length) {
        out.push({
          lc: new HumanMessage({ content: others as unknown as Record<string, unknown>[], id: `${id}#text` } as ConstructorParameters<typeof HumanMessage>[0]),
          as: { role: "user", content: others, metadata: { id: `${id}#text` } },
          origin: id,
        });
      }
      return out;
    }
  }
}

/**
 * A LangChain window as our messages again, for the same checks: a message that was not split is
 * the very object LangChain was given; the parts of a split message become the original again when
 * all of them are in the window (a partial group stays a partial user message).
 */
function backToOurs(window: readonly BaseMessage[], byId: Map<string, Converted>): Message[] {
  const out: Message[] = [];
  let i = 0;
  while (i < window.length) {
    const first = byId.get(window[i]!.id ?? "");
    if (!first) throw new Error(`LangChain returned a message the bench did not give it (id ${window[i]!.id})`);
    let j = i + 1;
    while (j < window.length && byId.get(window[j]!.id ?? "")?.origin === first.origin) j++;
    // A shallow copy: the contract's checker wants copies, and LangChain's own copies are of its message class.
    if (j - i === first.parts) out.push({ ...first.original });
    else {
      const blocks = window.slice(i, j).flatMap((lc) => {
        const content = byId.get(lc.id ?? "")!.as.content;
        return Array.isArray(content) ? content : [];
      });
      out.push({ ...first.as, content: blocks });
    }
    i = j;
  }
  return out;
}

export async function runLangChain(ctx: BenchContext, n: number, counter: TokenCounter): Promise<LangChainRun> {
  const { warmup, turns, budget, langchainDeadlineS, langchainBudgetS } = ctx.options;
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `lc${n}`);
  // Counts are pre-filled and the JIT is warm after the first size: above 1,000 messages one warm-up call is enough
  // (a full warm-up would take minutes per size at LangChain's per-call cost).
  const lcWarmup = n <= 1_000 ? warmup : Math.min(warmup, 1);
  const byId = new Map<string, Converted>();
  const tokens = new Map<string, number>();
  const lcHistory: BaseMessage[] = [];
  const sent: Message[] = history.slice();
  const add = (m: Message) => {
    for (const c of toLangChain(m)) {
      byId.set(c.lc.id ?? "", c);
      lcHistory.push(c.lc);
    }
  };
  for (const m of history) add(m);
  // Pre-fill the count cache (untimed): each message tokenized once, as our context does.
  const prefillStart = performance.now();
  for (const c of byId.values()) tokens.set(c.lc.id ?? "", counter.countMessage(c.as));
  const prefillMs = performance.now() - prefillStart;

  let deadline = Number.POSITIVE_INFINITY;
  let calls = 0;
  let firstCallAt = 0;
  const tokenCounter = (msgs: BaseMessage[]): number => {
    if (calls === 0) firstCallAt = performance.now();
    calls++;
    if (performance.now() > deadline) throw new DeadlineExceeded();
    let total = counter.replyPriming;
    for (const m of msgs) {
      const id = m.id ?? "";
      let t = tokens.get(id);
      if (t === undefined) {
        t = counter.countMessage(byId.get(id)!.as);
        tokens.set(id, t);
      }
      total += t;
    }
    return total;
  };
  const options = { maxTokens: budget, strategy: "last" as const, startOn: "human" as const, includeSystem: true, tokenCounter };

  const times: number[] = [];
  let invalid = 0;
  let checked = 0;
  let firstProblem: string | undefined;
  let lastWindow: BaseMessage[] = [];
  const spentBudget = performance.now() + langchainBudgetS * 1000;
  fullGc();
  for (let i = 0; i < stream.length; i++) {
    const measured = i >= lcWarmup;
    calls = 0;
    deadline = performance.now() + langchainDeadlineS * 1000;
    const t0 = performance.now();
    let window: BaseMessage[];
    try {
      add(stream[i]!);
      window = await trimMessages(lcHistory, options);
    } catch (error) {
      if (!(error instanceof DeadlineExceeded)) throw error;
      const elapsedMs = performance.now() - t0;
      const needed = callsNeeded(lcHistory, tokens, budget, counter.replyPriming);
      // Work of call k is (length − k) summed counts: extrapolate the loop's time by work done / work needed.
      const len = lcHistory.length;
      const work = (k: number) => k * len - (k * (k - 1)) / 2;
      const loopMs = performance.now() - firstCallAt;
      const estimatedMs = firstCallAt - t0 + loopMs * (work(needed) / Math.max(1, work(calls - 1)));
      return { n, turns: 0, aborted: { elapsedMs, estimatedMs, callsDone: calls - 1, callsNeeded: needed }, invalidWindows: 0, checkedWindows: 0, prefillMs };
    }
    const elapsed = performance.now() - t0;
    sent.push(stream[i]!);
    if (!measured) continue;
    times.push(elapsed);
    const problems = isModelCall(stream, i) ? windowProblems(sent, backToOurs(window, byId), budget, counter) : [];
    if (isModelCall(stream, i)) checked++;
    if (problems.length) {
      invalid++;
      firstProblem ??= problems[0];
    }
    lastWindow = window;
    if (times.length >= turns || performance.now() > spentBudget) break;
  }
  const windowAsOurs = backToOurs(lastWindow, byId);
  return {
    n,
    turns: times.length,
    total: distribution(times),
    invalidWindows: invalid,
    checkedWindows: checked,
    ...(firstProblem === undefined ? {} : { firstProblem }),
    windowMessages: lastWindow.length,
    windowTokens: counter.countRequest(windowAsOurs),
    prefillMs,
  };
}

/** runLangChain once per run and N: the langchain and fit-window scenarios share it (same histories, same new messages). */
export async function runLangChainMemo(ctx: BenchContext, n: number, counter: TokenCounter): Promise<LangChainRun> {
  const key = `langchain-run:${n}`;
  let run = ctx.memo.get(key) as LangChainRun | undefined;
  if (!run) {
    run = await runLangChain(ctx, n, counter);
    ctx.memo.set(key, run);
  }
  return run;
}

/** How many token-counter calls `trimMessages` "last" needs: it drops the oldest message one call at a time until the rest fits. */
function callsNeeded(lcHistory: readonly BaseMessage[], tokens: Map<string, number>, budget: number, priming: number): number {
  const counts = lcHistory.map((m) => tokens.get(m.id ?? "") ?? 0);
  const system = lcHistory[0]?.getType() === "system" ? counts[0]! : 0;
  const rest = counts.slice(system ? 1 : 0);
  let total = priming + system + rest.reduce((s, x) => s + x, 0);
  let dropped = 0;
  while (total > budget && dropped < rest.length) total -= rest[dropped++]!;
  return dropped + 1;
}

interface SampleValidity {
  budget: number;
  modelCalls: number;
  oursBroken: number;
  langchainBroken: number;
  oursFirst?: string;
  langchainFirst?: string;
  /** Broken LangChain windows by their first violated check. */
  langchainKinds: Record<string, number>;
}

/**
 * Window validity on the recorded sample session (it has a crash in the middle of a tool call): before
 * every assistant message, our window (context-simple) and LangChain's, both checked the same way.
 */
async function sampleValidity(ctx: BenchContext, budget: number, counter: TokenCounter): Promise<SampleValidity> {
  const messages = (await readFile(SAMPLE_TRANSCRIPT, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Message);
  const opened = await openContext("context-simple", { tmpRoot: ctx.tmpRoot });
  const byId = new Map<string, Converted>();
  const lcHistory: BaseMessage[] = [];
  const tokenCounter = (msgs: BaseMessage[]) => msgs.reduce((sum, m) => sum + counter.countMessage(byId.get(m.id ?? "")!.as), counter.replyPriming);
  const result: SampleValidity = { budget, modelCalls: 0, oursBroken: 0, langchainBroken: 0, langchainKinds: {} };
  try {
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role === "assistant" && i > 0) {
        const stored = messages.slice(0, i);
        result.modelCalls++;
        const ours = windowProblems(stored, await opened.context.getMessagesForRequest(budget), budget, counter);
        const lcWindow = await trimMessages(lcHistory, { maxTokens: budget, strategy: "last", startOn: "human", includeSystem: true, tokenCounter });
        // trimMessages with includeSystem returns [undefined] when nothing but the system message survives its startOn cut.
        const holes = lcWindow.filter((m) => m === undefined).length;
        const theirs = holes
          ? [`trimMessages returned ${holes} undefined entr${holes === 1 ? "y" : "ies"} in a window of ${lcWindow.length}`]
          : windowProblems(stored, backToOurs(lcWindow, byId), budget, counter);
        if (ours.length) {
          result.oursBroken++;
          result.oursFirst ??= `model call ${result.modelCalls}: ${ours[0]}`;
        }
        if (theirs.length) {
          result.langchainBroken++;
          const kind = holes ? "undefined entry (nothing fits after the last human message)" : (theirs[0]!.split(":")[0] ?? "?");
          result.langchainKinds[kind] = (result.langchainKinds[kind] ?? 0) + 1;
          result.langchainFirst ??= `model call ${result.modelCalls}: ${theirs[0]}`;
        }
      }
      await opened.context.addMessage(message);
      for (const c of toLangChain(message)) {
        byId.set(c.lc.id ?? "", c);
        lcHistory.push(c.lc);
      }
    }
  } finally {
    await opened.close();
  }
  return result;
}

export const langchainScenario: Scenario = {
  id: "langchain",
  data: { short: "ours: seeded generator + sample session", detail: `${GENERATED_HISTORY.detail}; window validity also on ${SAMPLE_SESSION.detail.replace(/^ours — /, "")}` },
  title: "LangChain.js trimMessages baseline",
  method:
    "`trimMessages(history, { strategy: \"last\", maxTokens: 128000, startOn: \"human\", includeSystem: true, tokenCounter })` " +
    "from @langchain/core on the same histories and the same new messages as scenario 1 (context-simple is our side of " +
    "the ratio). Our messages are converted once to SystemMessage / HumanMessage / AIMessage (tool_calls) / ToolMessage " +
    "(Anthropic tool_result blocks become one ToolMessage each). The tokenCounter counts each message once with our gpt-4o " +
    "counter and serves it from a Map afterwards — the best case for LangChain. One turn = convert + push the new message, " +
    "then trimMessages. Windows are mapped back to our messages and checked with the same checks as ours " +
    "(`checkWindowInvariants` + the bench's provider tool-pairing check). A call past the deadline is aborted " +
    "and its time extrapolated (marked ≈).",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const counter = getTokenCounter("gpt-4o");
    const rows: string[][] = [];
    const checks: Check[] = [];
    const runs: { lc: LangChainRun; ours: TurnRun }[] = [];
    for (const n of ctx.options.sizes) {
      let ours = ctx.memo.get(`turns:context-simple:${n}`) as TurnRun | undefined;
      if (!ours) {
        ctx.log(`langchain: our side (context-simple) at N=${count(n)}`);
        ours = await runTurns(ctx, "context-simple", n);
        ctx.memo.set(`turns:context-simple:${n}`, ours);
      }
      ctx.log(`langchain: trimMessages at N=${count(n)}`);
      const lc = await runLangChainMemo(ctx, n, counter);
      runs.push({ lc, ours });
      const lcMedian = lc.total?.median ?? lc.aborted?.estimatedMs ?? Number.NaN;
      const approx = lc.aborted ? "≈ " : "";
      ctx.log(`  LangChain ${approx}${ms(lcMedian)} vs ours ${ms(ours.total.median)}`);
      rows.push([
        count(n),
        lc.aborted ? `aborted at ${ms(lc.aborted.elapsedMs)} (${count(lc.aborted.callsDone)} of ${count(lc.aborted.callsNeeded)} counter calls)` : String(lc.turns),
        `${approx}${ms(lcMedian)}`,
        lc.total ? ms(lc.total.p99) : "—",
        ms(ours.total.median),
        `${approx}${ratio(lcMedian / ours.total.median, 0)}`,
        lc.aborted ? "—" : `${lc.invalidWindows} of ${lc.checkedWindows}`,
        `${ours.invalidWindows} of ${ours.checkedWindows}`,
        lc.windowTokens === undefined ? "—" : `${count(lc.windowTokens)} / ${lc.windowMessages}`,
        `${count(ours.lastWindowTokens)} / ${ours.windowMessages.median}`,
      ]);
      checks.push(check(`N=${count(n)}: LangChain median / ours median`, `${approx}${ratio(lcMedian / ours.total.median, 0)} (${approx}${ms(lcMedian)} vs ${ms(ours.total.median)})`, "report", undefined));
      if (!lc.aborted) checks.push(check(`N=${count(n)}: LangChain windows with broken tool pairing`, `${lc.invalidWindows} of ${lc.checkedWindows}`, "report", undefined));
    }
    const validity: SampleValidity[] = [];
    for (const budget of [32_000, ctx.options.budget]) {
      ctx.log(`langchain: window validity on ${SAMPLE_TRANSCRIPT} at ${count(budget)}`);
      const v = await sampleValidity(ctx, budget, counter);
      validity.push(v);
      checks.push(check(`${SAMPLE_TRANSCRIPT} at ${count(budget)}: broken windows, LangChain vs ours`, `${v.langchainBroken} vs ${v.oursBroken} of ${v.modelCalls}`, "report", undefined));
    }
    const problems = runs.filter((r) => r.lc.firstProblem).map((r) => `LangChain N=${count(r.lc.n)}: first broken window: ${r.lc.firstProblem}`);
    return {
      checks,
      tables: [
        {
          title: "Per-turn time and window validity, LangChain trimMessages vs context-simple",
          columns: ["N", "LangChain turns", "LangChain median", "LangChain p99", "ours median", "LangChain / ours", "LangChain broken windows", "our broken windows", "LangChain last window tokens / msgs", "our last window tokens / msgs (median)"],
          rows,
        },
        {
          title: `Window validity on the recorded sample session (${SAMPLE_TRANSCRIPT}: one crash in the middle of a tool call), a window before every assistant message`,
          columns: ["budget", "model calls", "LangChain broken windows", "… by first violated check", "our broken windows (context-simple)"],
          rows: validity.map((v) => [
            count(v.budget),
            String(v.modelCalls),
            String(v.langchainBroken),
            Object.entries(v.langchainKinds).map(([k, c]) => `${k}: ${c}`).join("; ") || "—",
            String(v.oursBroken),
          ]),
        },
      ],
      notes: [
        ...validity.flatMap((v) => [
          ...(v.langchainFirst ? [`Sample session at ${count(v.budget)}, LangChain's first broken window: ${v.langchainFirst}`] : []),
          ...(v.oursFirst ? [`Sample session at ${count(v.budget)}, OUR first broken window: ${v.oursFirst}`] : []),
        ]),
        "trimMessages(\"last\") copies every message of the history (new message objects) and then calls the token counter on the whole list, dropping one oldest message per call until the rest fits: O(history) copies and O(history²) summed counts per call, even with cached counts.",
        "A broken window here means a provider would reject it: most often a tool call whose result is missing (the history's crashes mid-tool, which trimMessages does not repair), or a cut that leaves a result without its call.",
        ...problems,
        ...runs.map((r) => `N=${count(r.lc.n)}: LangChain count pre-fill (untimed, tokenizes every message once): ${ms(r.lc.prefillMs)}.`),
      ],
      data: { validity, runs: runs.map((r) => ({ n: r.lc.n, langchain: r.lc, ours: { median: r.ours.total.median, p99: r.ours.total.p99, invalid: r.ours.invalidWindows } })) },
    };
  },
};
