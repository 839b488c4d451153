/**
 * Scenario "peers" (issue 20): the memory/window helpers of other libraries on the same histories
 * and the same new messages as the agent-loop turn, in the same process, beside context-simple:
 *
 * | peer | what one turn does | budget |
 * |---|---|---|
 * | AI SDK `pruneMessages` (ai) | push the new message, `pruneMessages({ messages, reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" })` | none (it prunes, it does not fit a budget) |
 * | OpenAI Agents `MemorySession` (@openai/agents-core) | `addItems([item])`, `getItems()` (what a Runner sends) | none |
 * | LlamaIndex `Memory` (@llamaindex/core/memory) | `add(message)`, `getLLM()` with `tokenLimit` = the budget, short-term ratio 1 | its own tiktoken count |
 *
 * LangChain trimMessages has its own scenario (langchain-trim.ts). Mastra's TokenLimiter and
 * ToolCallFilter are not here: @mastra/core and @mastra/memory 1.x declare `engines.node >= 22.13`
 * and this project runs (and is tested) on Node 20 (BENCHMARKS.md says so).
 *
 * Every peer gets our messages converted once (the new one inside the timed turn, like our
 * addMessage); each window at a model call is mapped back to our messages and checked like ours
 * (`windowProblems`: invariants, budget counted with our gpt-4o counter, provider tool pairing).
 */
import { MemorySession, type AgentInputItem } from "@openai/agents-core";
import { Settings } from "@llamaindex/core/global";
import { createMemory } from "@llamaindex/core/memory";
import { spawn } from "node:child_process";
import { pruneMessages, type ModelMessage } from "ai";
import type { Message } from "../../contracts/generated/message.js";
import { getTokenCounter, type TokenCounter } from "../../modules/tokens/index.js";
import { historyFor, isModelCall, runTurns, turnMessages, type TurnRun } from "./agent-loop-turn.js";
import { count, distribution, fullGc, ms, ratio, type Distribution } from "./measure.js";
import { reportToParent } from "./child.js";
import { loadMastra, mastraPeers } from "./mastra-peer.js";
import { GENERATED_HISTORY, check, type BenchContext, type BenchOptions, type Check, type Scenario, type ScenarioResult } from "./scenario.js";
import { toolPairingProblems, windowProblems } from "./tool-pairing.js";
import { PIECE_TAG, backToOurs, pushAsModel, splitBlocks, text, type Piece } from "./peer-messages.js";

interface Peer {
  readonly name: string;
  /** Builds the peer's memory over `history`; returns a turn: add one message, return the native window. */
  open(history: readonly Message[]): Promise<{ turn(message: Message): Promise<readonly unknown[]>; toOurs(window: readonly unknown[]): Message[] }>;
}

export interface PeerRun {
  peer: string;
  /** The first measured turn ran past the deadline: aborted after this many ms (a lower bound of one turn). */
  abortedMs?: number;
  n: number;
  turns: number;
  total: Distribution;
  /** Windows a provider would reject: tool pairing broken (the adapters' rules, tool-pairing.ts). */
  invalid: number;
  overBudget: number;
  /** Windows breaking any of our window invariants (contracts/WINDOW.md: pairing, budget, copies, marks, order, …). */
  broken: number;
  checked: number;
  firstProblem?: string;
  windowMessages: number;
}

const TAG = PIECE_TAG;

/** A turn past its deadline is aborted from inside the peer's token counting (LlamaIndex), like the LangChain scenario does. */
class DeadlineExceeded extends Error {}
let deadline = Number.POSITIVE_INFINITY;

// --- AI SDK ---------------------------------------------------------------------------------------

const aiSdk: Peer = {
  name: "AI SDK pruneMessages",
  async open(history) {
    const names = new Map<string, string>();
    const pieces: Piece[] = [];
    const messages: ModelMessage[] = [];
    const add = (m: Message) => void pushAsModel(m, names, pieces, messages);
    for (const m of history) add(m);
    return {
      async turn(message) {
        add(message);
        return pruneMessages({ messages, reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" });
      },
      toOurs(window) {
        // An assistant message pruneMessages emptied of its tool calls stands for ours without them.
        const native = window as ModelMessage[];
        const tags = native.map((m) => (m.providerOptions?.[TAG] as { piece?: number } | undefined)?.piece);
        const byPiece = new Map(native.map((m, i) => [tags[i], m]));
        return backToOurs(tags, pieces, (k, piece) => {
          const m = piece.origin;
          const pruned = byPiece.get(k);
          const hasCalls = (m.tool_calls?.length ?? 0) > 0 || (Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use"));
          if (m.role !== "assistant" || !hasCalls || !Array.isArray(pruned?.content) || pruned.content.some((p) => p.type === "tool-call")) return m;
          const { tool_calls: _dropped, ...rest } = m;
          return { ...rest, content: text(m.content) } as Message;
        });
      },
    };
  },
};

// --- OpenAI Agents ---------------------------------------------------------------------------------

function toItems(message: Message): AgentInputItem[] {
  switch (message.role) {
    case "system":
    case "developer":
      return [{ role: "system", content: text(message.content) }];
    case "tool":
      return [{ type: "function_call_result", callId: message.tool_call_id ?? "", name: message.name ?? "tool", status: "completed", output: text(message.content) } as AgentInputItem];
    case "assistant": {
      const items: AgentInputItem[] = [];
      const body = text(message.content);
      if (body) items.push({ role: "assistant", status: "completed", content: [{ type: "output_text", text: body }] } as AgentInputItem);
      for (const call of message.tool_calls ?? []) items.push({ type: "function_call", callId: call.id, name: call.function.name, arguments: call.function.arguments } as AgentInputItem);
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type === "tool_use") items.push({ type: "function_call", callId: block.id, name: block.name, arguments: JSON.stringify(block.input) } as AgentInputItem);
      }
      return items.length ? items : [{ role: "assistant", status: "completed", content: [] } as AgentInputItem];
    }
    default: {
      if (!Array.isArray(message.content)) return [{ role: "user", content: message.content ?? "" }];
      const items: AgentInputItem[] = [];
      for (const b of message.content) {
        if (b.type === "tool_result") items.push({ type: "function_call_result", callId: b.tool_use_id, name: "tool", status: "completed", output: text([b]) } as AgentInputItem);
      }
      const rest = message.content.filter((b) => b.type !== "tool_result");
      if (rest.length) items.push({ role: "user", content: text(rest) });
      return items;
    }
  }
}

const openaiAgents: Peer = {
  name: "OpenAI Agents MemorySession",
  async open(history) {
    const session = new MemorySession();
    const pieces: Piece[] = [];
    const tagged = (m: Message): AgentInputItem[] => {
      const items = toItems(m);
      return items.map((item, k) => {
        const blocks = splitBlocks(m, items.length, k);
        pieces.push({ origin: m, parts: items.length, ...(blocks ? { blocks } : {}) });
        return { ...item, providerData: { [TAG]: pieces.length - 1 } } as AgentInputItem;
      });
    };
    await session.addItems(history.flatMap(tagged));
    return {
      async turn(message) {
        await session.addItems(tagged(message));
        return session.getItems();
      },
      toOurs(window) {
        return backToOurs((window as { providerData?: Record<string, number> }[]).map((i) => i.providerData?.[TAG]), pieces);
      },
    };
  },
};

// --- LlamaIndex --------------------------------------------------------------------------------------

interface LlamaMessage {
  role: "system" | "user" | "assistant";
  content: string;
  options: Record<string, unknown>;
}

function toLlama(message: Message): LlamaMessage[] {
  switch (message.role) {
    case "system":
    case "developer":
      return [{ role: "system", content: text(message.content), options: {} }];
    case "tool":
      return [{ role: "user", content: text(message.content), options: { toolResult: { id: message.tool_call_id, result: text(message.content), isError: false } } }];
    case "assistant": {
      const calls = [
        ...(message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, input: c.function.arguments })),
        ...(Array.isArray(message.content) ? message.content : []).flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, input: JSON.stringify(b.input) }] : [])),
      ];
      return [{ role: "assistant", content: text(message.content), options: calls.length ? { toolCall: calls } : {} }];
    }
    default: {
      if (!Array.isArray(message.content)) return [{ role: "user", content: message.content ?? "", options: {} }];
      const out: LlamaMessage[] = message.content
        .filter((b) => b.type === "tool_result")
        .map((b) => ({ role: "user" as const, content: text([b]), options: { toolResult: { id: b.type === "tool_result" ? b.tool_use_id : "", result: text([b]), isError: false } } }));
      const rest = message.content.filter((b) => b.type !== "tool_result");
      if (rest.length) out.push({ role: "user", content: text(rest), options: {} });
      return out;
    }
  }
}

function llamaIndex(budget: number): Peer {
  return {
    name: "LlamaIndex Memory",
    async open(history) {
      const pieces: Piece[] = [];
      const tagged = (m: Message): LlamaMessage[] => {
        const converted = toLlama(m);
        return converted.map((c, k) => {
          const blocks = splitBlocks(m, converted.length, k);
          pieces.push({ origin: m, parts: converted.length, ...(blocks ? { blocks } : {}) });
          return { ...c, options: { ...c.options, [TAG]: pieces.length - 1 } };
        });
      };
      // LlamaIndex counts with Settings.tokenizer (js-tiktoken); the wrapper only adds the deadline.
      const base = Settings.tokenizer;
      Settings.tokenizer = {
        encode: (text: string) => {
          if (performance.now() > deadline) throw new DeadlineExceeded();
          return base.encode(text);
        },
        decode: (tokens: Uint32Array) => base.decode(tokens),
      } as typeof base;
      const memory = createMemory({ tokenLimit: budget, shortTermTokenLimitRatio: 1 });
      for (const m of history) for (const c of tagged(m)) await memory.add(c);
      return {
        async turn(message) {
          for (const c of tagged(message)) await memory.add(c);
          return memory.getLLM();
        },
        toOurs(window) {
          return backToOurs((window as { options?: Record<string, unknown> }[]).map((m) => m.options?.[TAG] as number | undefined), pieces);
        },
      };
    },
  };
}

// --- the scenario ------------------------------------------------------------------------------------

async function runPeer(ctx: BenchContext, peer: Peer, n: number, counter: TokenCounter): Promise<PeerRun> {
  const { warmup, turns, budget } = ctx.options;
  const history = historyFor(ctx, n);
  const stream = turnMessages(ctx, `peer-${peer.name.split(" ")[0]}-${n}`);
  const memory = await peer.open(history);
  const sent: Message[] = history.slice();
  const times: number[] = [];
  let invalid = 0;
  let overBudget = 0;
  let broken = 0;
  let checked = 0;
  let firstProblem: string | undefined;
  let windowMessages = 0;
  const spent = performance.now() + ctx.options.langchainBudgetS * 1000;
  fullGc();
  for (let i = 0; i < stream.length; i++) {
    const t0 = performance.now();
    deadline = t0 + ctx.options.langchainDeadlineS * 1000;
    let window: readonly unknown[];
    try {
      window = await memory.turn(stream[i]!);
    } catch (error) {
      if (!(error instanceof DeadlineExceeded)) throw error;
      return { peer: peer.name, n, turns: 0, abortedMs: performance.now() - t0, total: distribution([performance.now() - t0]), invalid: 0, overBudget: 0, broken: 0, checked: 0, windowMessages: 0 };
    } finally {
      deadline = Number.POSITIVE_INFINITY;
    }
    const elapsed = performance.now() - t0;
    sent.push(stream[i]!);
    if (i < warmup) continue;
    times.push(elapsed);
    windowMessages = window.length;
    if (isModelCall(stream, i)) {
      checked++;
      const ours = memory.toOurs(window);
      if (toolPairingProblems(ours).length > 0) invalid++;
      if (counter.countRequest(ours) > budget) overBudget++;
      const problems = windowProblems(sent, ours, budget, counter);
      if (problems.length) {
        broken++;
        firstProblem ??= problems[0];
      }
    }
    if (times.length >= turns || performance.now() > spent) break;
  }
  return { peer: peer.name, n, turns: times.length, total: distribution(times), invalid, overBudget, broken, checked, ...(firstProblem ? { firstProblem } : {}), windowMessages };
}

/**
 * LlamaIndex and Mastra run in a child process killed at the deadline: one js-tiktoken `encode` of
 * a long tool result can run for minutes, and a synchronous call cannot be aborted from inside.
 * Child side: `--child peers <peer> <n> <options JSON>`.
 */
export async function peersChild(args: string[]): Promise<void> {
  const [name, nText, optionsText] = args as [string, string, string];
  const options = JSON.parse(optionsText) as BenchOptions;
  const ctx: BenchContext = { options, entry: "", tmpRoot: ".", memo: new Map(), log: () => undefined } as BenchContext;
  const mastra = name.startsWith("Mastra") ? mastraPeers((await loadMastra(() => undefined)).processors, options.budget) : [];
  const peer = [aiSdk, openaiAgents, llamaIndex(options.budget), ...mastra].find((p) => p.name === name);
  if (!peer) throw new Error(`unknown peer ${name}`);
  reportToParent(await runPeer(ctx, peer, Number(nText), getTokenCounter("gpt-4o")));
}

/** runPeer in a child process, killed (and reported aborted) after `limitMs`. */
function runPeerIsolated(ctx: BenchContext, peer: Peer, n: number, limitMs: number): Promise<PeerRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--expose-gc", "--max-old-space-size=8192", ctx.entry, "--child", "peers", peer.name, String(n), JSON.stringify(ctx.options)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, limitMs);
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      if (killed) {
        resolve({ peer: peer.name, n, turns: 0, abortedMs: elapsed, total: distribution([elapsed]), invalid: 0, overBudget: 0, broken: 0, checked: 0, windowMessages: 0 });
        return;
      }
      const line = stdout.split("\n").reverse().find((l) => l.startsWith("BENCH_RESULT "));
      if (code === 0 && line) resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as PeerRun);
      else reject(new Error(`peer child exited with ${code}: ${stderr.trim().slice(-2000)}`));
    });
  });
}

/**
 * A Mastra peer's run at N, once per bench run: the peers and fit-window scenarios share it. Loads
 * (installs on first use) test/bench/mastra; `error` says why it could not run.
 */
export async function mastraRunMemo(ctx: BenchContext, name: string, n: number): Promise<{ run: PeerRun; error?: undefined } | { error: string; run?: undefined }> {
  const key = `peer-run:${name}:${n}`;
  const memo = ctx.memo.get(key) as PeerRun | undefined;
  if (memo) return { run: memo };
  try {
    const { processors } = await loadMastra(ctx.log);
    const peer = mastraPeers(processors, ctx.options.budget).find((p) => p.name === name);
    if (!peer) return { error: `no Mastra peer named ${name}` };
    const run = await runPeerIsolated(ctx, peer, n, ctx.options.langchainDeadlineS * 1000 * 2);
    ctx.memo.set(key, run);
    return { run };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

export const peersScenario: Scenario = {
  id: "peers",
  data: GENERATED_HISTORY,
  title: "Peers: AI SDK pruneMessages, OpenAI Agents MemorySession, LlamaIndex Memory, Mastra TokenLimiter (+ ToolCallFilter)",
  method:
    "Same histories and new messages as the agent-loop turn (context-simple is our side). One turn = convert + add the new " +
    "message, then ask the peer for what it would send (table in test/bench/peers.ts). Windows at model calls are mapped back to " +
    "our messages and checked like ours: invariants, tool pairing as a provider checks it, and the budget (128k, counted with our " +
    "gpt-4o counter). A peer is 'ahead' of us when its median turn is faster; a window that is invalid or over budget is counted.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const counter = getTokenCounter("gpt-4o");
    const peers: Peer[] = [aiSdk, openaiAgents, llamaIndex(ctx.options.budget)];
    let mastraNote: string;
    try {
      const { processors, version } = await loadMastra(ctx.log);
      peers.push(...mastraPeers(processors, ctx.options.budget));
      mastraNote = `Mastra (${version}: the last line that runs on Node 20 — 1.x requires Node ≥ 22.13; installed on demand in test/bench/mastra): the memory processors an agent applies to remembered messages, ToolCallFilter() then TokenLimiter(budget), and TokenLimiter alone; the system prompt is passed as the agent's instructions (systemMessage). TokenLimiter counts with js-tiktoken and its own overheads (3.8 per message, 24 per conversation); ToolCallFilter drops every message holding a tool call or result.`;
    } catch (error) {
      mastraNote = `Mastra TokenLimiter / ToolCallFilter: not measured — loading test/bench/mastra failed: ${(error as Error).message}`;
    }
    const rows: string[][] = [];
    const checks: Check[] = [];
    const notes: string[] = [];
    /** Peers whose turn ran past the deadline: not run at larger N (a larger history only costs them more). */
    const aborted = new Map<string, number>();
    for (const n of ctx.options.sizes) {
      let ours = ctx.memo.get(`turns:context-simple:${n}`) as TurnRun | undefined;
      if (!ours) {
        ctx.log(`peers: our side (context-simple) at N=${count(n)}`);
        ours = await runTurns(ctx, "context-simple", n);
        ctx.memo.set(`turns:context-simple:${n}`, ours);
      }
      rows.push([count(n), "context-simple (ours)", String(ours.total.n), ms(ours.total.median), ms(ours.total.p99), "1×", "—", "—", `${ours.invalidWindows} of ${ours.checkedWindows}`]);
      for (const peer of peers) {
        if (aborted.has(peer.name)) {
          rows.push([count(n), peer.name, "not run", `> ${ms(aborted.get(peer.name)!)}`, "—", "—", "—", "—", "—"]);
          checks.push(check(`N=${count(n)}: ours ahead of ${peer.name}`, `its turn > ${ms(aborted.get(peer.name)!)} at a smaller N (not run)`, "> 1×", true));
          continue;
        }
        ctx.log(`peers: ${peer.name} at N=${count(n)}`);
        try {
          // LlamaIndex and Mastra: in a child killed at the deadline (its history set-up included).
          const memoKey = `peer-run:${peer.name}:${n}`;
          const run = (ctx.memo.get(memoKey) as PeerRun | undefined) ?? (peer.name.startsWith("LlamaIndex") || peer.name.startsWith("Mastra") ? await runPeerIsolated(ctx, peer, n, ctx.options.langchainDeadlineS * 1000 * 2) : await runPeer(ctx, peer, n, counter));
          ctx.memo.set(memoKey, run);
          if (run.abortedMs !== undefined) {
            aborted.set(peer.name, run.abortedMs);
            rows.push([count(n), run.peer, "aborted", `> ${ms(run.abortedMs)}`, "—", `> ${ratio(run.abortedMs / ours.total.median, 0)}`, "—", "—", "—"]);
            checks.push(check(`N=${count(n)}: ours ahead of ${run.peer}`, `its first turn aborted at ${ms(run.abortedMs)} (deadline) vs ours ${ms(ours.total.median)}`, "> 1×", true));
            continue;
          }
          const slower = run.total.median / ours.total.median;
          rows.push([count(n), run.peer, String(run.turns), ms(run.total.median), ms(run.total.p99), ratio(slower), `${run.invalid} of ${run.checked}`, `${run.overBudget} of ${run.checked}`, `${run.broken} of ${run.checked}`]);
          checks.push(check(`N=${count(n)}: ours ahead of ${run.peer} (its median / ours)`, `${ratio(slower)} (${ms(run.total.median)} vs ${ms(ours.total.median)})`, "> 1×", slower > 1));
          if (run.firstProblem) notes.push(`${run.peer} at N=${count(n)}: first window breaking an invariant: ${run.firstProblem}`);
        } catch (error) {
          rows.push([count(n), peer.name, "error", "—", "—", "—", "—", "—", "—"]);
          notes.push(`${peer.name} at N=${count(n)} failed: ${(error as Error).message}`);
        }
      }
    }
    return {
      checks,
      tables: [{ title: "Per-turn time and windows of each peer beside ours", columns: ["N", "who", "turns", "median", "p99", "median / ours", "rejected by a provider (tool pairing)", "over budget", "any window invariant broken"], rows }],
      notes: [
        "Columns: 'rejected by a provider' = the window breaks tool pairing as the adapters check it; 'over budget' = it costs more than 128k tokens with our gpt-4o counter; 'any window invariant broken' = our own checks (contracts/WINDOW.md: the two above, plus copies, marks on changed messages, order, the first message a user turn). pruneMessages strips old tool calls and results from messages without marking them: that breaks our 'changes-marked' invariant, not a provider's rules.",
        "pruneMessages and MemorySession enforce no token budget: at these sizes every window they return is the whole (pruned) history, far over 128k tokens.",
        `A turn is aborted at the deadline (${ctx.options.langchainDeadlineS} s): its figure is a lower bound, and the peer is not run at larger N. LlamaIndex Memory.getLLM() recounts the messages it has kept for every message it considers (O(window²) tokenizations per call).`,
        "LlamaIndex Memory counts with its own tokenizer (js-tiktoken via @llamaindex/env) and fits its short-term messages to tokenLimit; its windows are checked with our counter like every other.",
        mastraNote,
        ...notes,
      ],
      data: { rows },
    };
  },
};
