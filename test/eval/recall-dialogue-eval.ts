/**
 * The recall eval on conversations people wrote (issue 19): REALTALK (test/eval/realtalk.ts), its
 * development split by default. For each question the history is the whole conversation (session
 * date headers, both speakers' messages with their names) and the question as the newest user
 * message; the window for each budget is requested from context-simple (gpt-4o counting), and the
 * question is answerable when EVERY evidence message (metadata.id = dia_id) is in it.
 *
 * Methods:
 * - recent — the recent window alone (no strategy);
 * - recall — `{ "use": "recall" }`, the default config;
 * - bm25 — the baseline: a plain BM25 fill of the whole budget (the same index, the question's
 *   words as the query, no question-clause cut, no reranking), best hit first, each hit with the
 *   message before and after it, while the next group fits; the question last. Not a strategy of
 *   ours: computed here, counted with the same counter, up to the budget (the context module's
 *   windows stay below 0.85 × budget: the baseline gets more room than the default has);
 * - embedder — recall with the hashed test embedder fused in (test/eval/hashed-embedder.ts);
 * - embedder-local (opt-in: `--local-embedder`) — recall with the offline model of
 *   modules/embedder-local (Universal Sentence Encoder lite) fused in;
 * - ablations — recall with one rule, cue lexicon or feature removed (RecallTuning), or an option
 *   that is off by default turned on (pseudo-relevance feedback), each a row.
 */
import type { Message } from "../../contracts/generated/message.js";
import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { STRATEGIES_CAPABILITY, defineStrategy } from "../../contracts/strategy-definition.js";
import { Coordinator } from "../../core/coordinator.js";
import { getTokenCounter } from "../../modules/tokens/token-counter.js";
import type { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount } from "../../modules/context-simple/index.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { RecallStrategy, recallOptions, type RecallTuning } from "../../modules/strategies/recall.js";
import type { Embedder } from "../../contracts/search.js";
import { hashedEmbedder } from "./hashed-embedder.js";
import { historyFor, type DialogueConversation, type DialogueQuestion, type Split } from "./realtalk.js";

export const DIALOGUE_BUDGETS = [2_000, 4_000, 8_000] as const;

export interface DialogueMethod {
  id: string;
  label: string;
  /** A context-module pipeline, or the BM25 baseline computed by the harness. */
  kind: "pipeline" | "bm25";
  strategies?: unknown[];
  /** true: the hashed test embedder; a function: the embedder it makes (closed after the conversation when it can be). */
  embedder?: boolean | (() => Embedder & { close?(): Promise<void> });
  /** Recall with this tuning (an ablation): registered as the strategy "recall-tuned". */
  tuning?: RecallTuning;
}

export const DIALOGUE_METHODS: readonly DialogueMethod[] = [
  { id: "recent", label: "recent window (no recall)", kind: "pipeline", strategies: [] },
  { id: "bm25", label: "baseline: BM25 fill of the whole budget, hits ±1 message", kind: "bm25" },
  { id: "recall", label: "recall, default config (`{ \"use\": \"recall\" }`)", kind: "pipeline", strategies: [{ use: "recall" }] },
  { id: "embedder", label: "recall + hashed test embedder (RRF)", kind: "pipeline", strategies: [{ use: "recall", mixing: "rrf" }], embedder: true },
];

/** One row per rule, lexicon or feature of recall, removed alone. */
/** The default before issue 30's options were adopted (no smoothing, every hit then ±1 around each). */
export const PREVIOUS_DEFAULT: DialogueMethod = { id: "previous", label: "recall, the previous default (`\"smoothing\": 0, \"focus\": false`)", kind: "pipeline", strategies: [{ use: "recall", smoothing: 0, focus: false }] };

export const DIALOGUE_ABLATIONS: readonly DialogueMethod[] = [
  PREVIOUS_DEFAULT,
  { id: "no-tool-output", label: "− tool output down (the one ranking rule of the default)", kind: "pipeline", tuning: { rankingOff: ["tool-output"] } },
  ...(["question-only", "answer-type", "revision", "diversity"] as const).map(
    (rule): DialogueMethod => ({ id: `with-${rule}`, label: `+ cue rule ${rule}`, kind: "pipeline", tuning: { rankingOn: [rule] } }),
  ),
  { id: "cues", label: "+ every cue rule (ranking \"cues\", the generator-tuned ranking)", kind: "pipeline", strategies: [{ use: "recall", ranking: "cues" }] },
  { id: "search", label: "− question clauses and tool weight (ranking \"search\")", kind: "pipeline", strategies: [{ use: "recall", ranking: "search" }] },
  { id: "whole-message", label: "− question clauses (the whole message is the query)", kind: "pipeline", tuning: { wholeMessage: true } },
  { id: "fixed-share", label: "− adaptive share (recall always 0.4 of 0.8 × available)", kind: "pipeline", tuning: { fixedShare: true } },
  { id: "no-neighbours", label: "− neighbouring units", kind: "pipeline", tuning: { noNeighbours: true } },
  { id: "narrow", label: "− wider neighbours (±2 … ±6 while the budget lasts)", kind: "pipeline", tuning: { narrow: true } },
  { id: "no-headers", label: "− session date headers", kind: "pipeline", tuning: { noHeaders: true } },
  { id: "no-speakers", label: "− speaker names in the index", kind: "pipeline", tuning: { index: { speakers: false } } },
  { id: "k8", label: "− k set by the budget (k 8)", kind: "pipeline", strategies: [{ use: "recall", k: 8 }] },
  { id: "dates", label: "+ date parts (`\"dates\": true`)", kind: "pipeline", strategies: [{ use: "recall", dates: true }] },
  { id: "smoothing", label: "− score smoothing (`\"smoothing\": 0`)", kind: "pipeline", strategies: [{ use: "recall", smoothing: 0 }] },
  { id: "focus", label: "− context around the strongest hits (`\"focus\": false`: every hit, then ±1 around each)", kind: "pipeline", strategies: [{ use: "recall", focus: false }] },
  { id: "entities", label: "+ speaker / entity priors (`\"entities\": true`)", kind: "pipeline", strategies: [{ use: "recall", entities: true }] },
  {
    id: "mixing",
    label: "recall + hashed test embedder, z-score mixing (`\"mixing\": \"zscore\"`, the default with an embedder)",
    kind: "pipeline",
    strategies: [{ use: "recall", mixing: "zscore" }],
    embedder: true,
  },
  {
    id: "feedback",
    label: "+ pseudo-relevance feedback (`\"feedback\": true`: RM3, 10 terms of the top 5 hits, weight 0.5)",
    kind: "pipeline",
    strategies: [{ use: "recall", feedback: true }],
  },
];

/** Variants of issue 30's options tried while choosing the default (`--rows` only; not in the bench). */
export const DIALOGUE_VARIANTS: readonly DialogueMethod[] = [
  { id: "smoothing-0.5", label: "+ score smoothing 0.5", kind: "pipeline", strategies: [{ use: "recall", smoothing: 0.5 }] },
  { id: "focus-5x2", label: "+ focus, best 5 hits ±2", kind: "pipeline", strategies: [{ use: "recall", focus: { hits: 5, radius: 2 } }] },
  { id: "focus-3x4", label: "+ focus, best 3 hits ±4", kind: "pipeline", strategies: [{ use: "recall", focus: { hits: 3, radius: 4 } }] },
  { id: "focus-rest", label: "+ focus (best 3 ±2), further hits with ±1", kind: "pipeline", strategies: [{ use: "recall", focus: { rest: "neighbours" } }] },
  { id: "focus-rest+smoothing", label: "+ focus (best 3 ±2, further hits ±1) and smoothing 0.3", kind: "pipeline", strategies: [{ use: "recall", focus: { rest: "neighbours" }, smoothing: 0.3 }] },
  { id: "focus+smoothing", label: "+ focus (best 3 ±2) and smoothing 0.3", kind: "pipeline", strategies: [{ use: "recall", focus: {}, smoothing: 0.3 }] },
  { id: "all-four", label: "+ focus, smoothing 0.3, dates, entities", kind: "pipeline", strategies: [{ use: "recall", focus: {}, smoothing: 0.3, dates: true, entities: true }] },
];

export interface DialogueResult {
  id: string;
  category: number;
  split: Split;
  /** Budget → every evidence message in the window. */
  ok: Record<number, boolean>;
  /** Budget → the share of the evidence messages in the window (0–1). */
  share?: Record<number, number>;
}

export interface DialogueOutcome {
  method: string;
  results: DialogueResult[];
  msPerWindow: number;
}

/** BM25 + neighbours: the baseline window for one question (ids of the messages in it). */
export async function bm25Window(index: HistorySearchIndex, history: readonly Message[], budget: number): Promise<Set<string | undefined>> {
  const counter = getTokenCounter("gpt-4o");
  const question = history[history.length - 1]!;
  const before = history.length - 1;
  let used = counter.replyPriming + counter.countMessage(question);
  const inWindow = new Set<number>([before]);
  const hits = await index.search(String(question.content ?? ""), { k: before, before, filter: { role: ["user", "assistant"] } });
  for (const hit of hits) {
    const group = [hit.index - 1, hit.index, hit.index + 1].filter((p) => p >= 0 && p < before && !inWindow.has(p));
    if (group.length === 0) continue;
    const cost = group.reduce((sum, p) => sum + counter.countMessage(history[p]!), 0);
    if (used + cost > budget) continue;
    used += cost;
    for (const p of group) inWindow.add(p);
  }
  return new Set([...inWindow].map((p) => history[p]!.metadata?.id as string | undefined));
}

/** The share of a question's evidence messages among `ids` (0–1). */
export function evidenceShare(question: DialogueQuestion, ids: ReadonlySet<unknown>): number {
  return question.evidence.filter((id) => ids.has(id)).length / Math.max(1, question.evidence.length);
}

/** Runs one method over the questions of one conversation, at every budget. */
export async function evaluateDialogue(
  conversation: DialogueConversation,
  questions: readonly DialogueQuestion[],
  method: DialogueMethod,
  budgets: readonly number[] = DIALOGUE_BUDGETS,
): Promise<DialogueOutcome> {
  const results: DialogueResult[] = [];
  let windowMs = 0;
  let windows = 0;
  if (method.kind === "bm25") {
    let history: Message[] = [];
    // Plain BM25: the same index and tokenizer, without the speaker names recall's index adds.
    const index = new HistorySearchIndex(() => history, { speakers: false });
    for (const q of questions) {
      history = historyFor(conversation, q);
      const ok: Record<number, boolean> = {};
      const share: Record<number, number> = {};
      for (const budget of budgets) {
        const t0 = performance.now();
        const ids = await bm25Window(index, history, budget);
        windowMs += performance.now() - t0;
        windows++;
        ok[budget] = q.evidence.every((id) => ids.has(id));
        share[budget] = evidenceShare(q, ids);
      }
      results.push({ id: q.id, category: q.category, split: q.split, ok, share });
    }
    return { method: method.label, results, msPerWindow: windows ? windowMs / windows : 0 };
  }
  const coordinator = new Coordinator({ sessionId: `dialogue-${conversation.name}` });
  const embedder = typeof method.embedder === "function" ? method.embedder() : method.embedder ? hashedEmbedder : undefined;
  if (embedder) coordinator.registerCapability(EMBEDDER_CAPABILITY, embedder);
  let strategies = method.strategies ?? [];
  if (method.tuning) {
    const tuning = method.tuning;
    coordinator.registerCapability(STRATEGIES_CAPABILITY, [
      defineStrategy({ name: "recall-tuned", description: "recall with a tuning (eval ablation)", optionsSchema: recallOptions, create: (options) => new RecallStrategy(options, tuning) }),
    ]);
    strategies = [{ use: "recall-tuned" }];
  }
  const context = (await mount(coordinator, { strategies: strategies as never })) as HistoryContextManager;
  try {
    for (const q of questions) {
      await context.setMessages(historyFor(conversation, q));
      // Every message indexed and (with an embedder) embedded: windows never wait for it (issue 30).
      await context.indexReady();
      const ok: Record<number, boolean> = {};
      const share: Record<number, number> = {};
      for (const budget of budgets) {
        const t0 = performance.now();
        const window = await context.getMessagesForRequest(budget);
        windowMs += performance.now() - t0;
        windows++;
        const ids = new Set(window.map((m) => m.metadata?.id));
        ok[budget] = q.evidence.every((id) => ids.has(id));
        share[budget] = evidenceShare(q, ids);
      }
      results.push({ id: q.id, category: q.category, split: q.split, ok, share });
    }
  } finally {
    await coordinator.cleanup();
    if (embedder && embedder !== hashedEmbedder) await (embedder as { close?(): Promise<void> }).close?.();
  }
  return { method: method.label, results, msPerWindow: windows ? windowMs / windows : 0 };
}

export interface DialogueRun {
  split: Split;
  budgets: number[];
  conversations: { name: string; messages: number; sessions: number; questions: number; dropped: number }[];
  outcomes: DialogueOutcome[];
  seconds: number;
}

export async function runDialogueEval(
  conversations: readonly DialogueConversation[],
  options: { split: Split; methods: readonly DialogueMethod[]; budgets?: readonly number[]; log?: (line: string) => void },
): Promise<DialogueRun> {
  const started = performance.now();
  const budgets = [...(options.budgets ?? DIALOGUE_BUDGETS)];
  const outcomes: DialogueOutcome[] = options.methods.map((m) => ({ method: m.label, results: [], msPerWindow: 0 }));
  const conversationsOut: DialogueRun["conversations"] = [];
  for (const conversation of conversations) {
    const questions = conversation.questions.filter((q) => q.split === options.split);
    conversationsOut.push({ name: conversation.name, messages: conversation.messages.length, sessions: conversation.sessions, questions: questions.length, dropped: conversation.dropped });
    for (const [i, method] of options.methods.entries()) {
      const o = await evaluateDialogue(conversation, questions, method, budgets);
      const total = outcomes[i]!;
      const before = total.results.length;
      total.results.push(...o.results);
      total.msPerWindow = (total.msPerWindow * before + o.msPerWindow * o.results.length) / Math.max(1, total.results.length);
      options.log?.(`[dialogue] ${conversation.name} · ${method.label}: ${budgets.map((b) => `${o.results.filter((r) => r.ok[b]).length}/${o.results.length}`).join(" · ")}`);
    }
  }
  return { split: options.split, budgets, conversations: conversationsOut, outcomes, seconds: (performance.now() - started) / 1000 };
}

const pct = (a: number, b: number) => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);

export function dialogueRate(run: DialogueRun, method: string, budget: number): number {
  const rs = run.outcomes.find((o) => o.method === method)?.results ?? [];
  return rs.filter((r) => r.ok[budget]).length / Math.max(1, rs.length);
}

/** Rows: methods; columns: budgets (share of questions with all evidence in the window). */
export function renderDialogueTable(run: DialogueRun, baseline?: string): string {
  const k = (b: number) => `${b / 1000}k`;
  const lines = [`| method | ${run.budgets.map((b) => `${k(b)} tokens`).join(" | ")} |`, `|---|${run.budgets.map(() => "---").join("|")}|`];
  for (const o of run.outcomes) {
    const cells = run.budgets.map((b) => {
      const a = o.results.filter((r) => r.ok[b]).length;
      const delta = baseline && o.method !== baseline ? ` (${signed(100 * (dialogueRate(run, o.method, b) - dialogueRate(run, baseline, b)))} vs baseline)` : "";
      return `**${pct(a, o.results.length)}** (${a}/${o.results.length})${delta}`;
    });
    lines.push(`| ${o.method} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** REALTALK's categories. */
export const REALTALK_CATEGORIES: Readonly<Record<number, string>> = { 1: "fact", 2: "date", 3: "inference" };

/** Per category (REALTALK's by default: 1 fact, 2 date, 3 inference) at one budget. */
export function renderDialogueCategories(run: DialogueRun, budget: number, names: Readonly<Record<number, string>> = REALTALK_CATEGORIES): string {
  const cats = [...new Set(run.outcomes.flatMap((o) => o.results.map((r) => r.category)))].sort();
  const lines = [`| method (at ${budget / 1000}k) | ${cats.map((c) => `${names[c] ?? c} (n = ${run.outcomes[0]?.results.filter((r) => r.category === c).length ?? 0})`).join(" | ")} |`, `|---|${cats.map(() => "---").join("|")}|`];
  for (const o of run.outcomes) {
    lines.push(`| ${o.method} | ${cats.map((c) => { const rs = o.results.filter((r) => r.category === c); return pct(rs.filter((r) => r.ok[budget]).length, rs.length); }).join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The mean share of evidence messages in the window (0–1; results without shares count as all-or-nothing). */
export function dialogueShare(run: DialogueRun, method: string, budget: number): number {
  const rs = run.outcomes.find((o) => o.method === method)?.results ?? [];
  return rs.reduce((sum, r) => sum + (r.share?.[budget] ?? (r.ok[budget] ? 1 : 0)), 0) / Math.max(1, rs.length);
}

/** Rows: methods; columns: budgets (the mean share of a question's evidence messages in the window). */
export function renderDialogueShares(run: DialogueRun): string {
  const lines = [`| method | ${run.budgets.map((b) => `${b / 1000}k tokens`).join(" | ")} |`, `|---|${run.budgets.map(() => "---").join("|")}|`];
  for (const o of run.outcomes) lines.push(`| ${o.method} | ${run.budgets.map((b) => `${(100 * dialogueShare(run, o.method, b)).toFixed(1)} %`).join(" | ")} |`);
  return lines.join("\n");
}

function signed(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`;
}

/** The rows of issue 30's methods (each an option of the recall strategy), for the ablation table. */
export const OPTION_ROWS: readonly string[] = ["previous", "dates", "smoothing", "focus", "entities", "mixing"];

/** The ablation rows of a run: the baseline, the default, each option row and each embedder row it holds. */
function ablationRows(run: DialogueRun): string[] {
  const labelOf = (id: string) => [...DIALOGUE_METHODS, ...DIALOGUE_ABLATIONS].find((m) => m.id === id)?.label;
  const wanted = ["bm25", "recall", ...OPTION_ROWS].map(labelOf).filter((l): l is string => l !== undefined);
  const present = run.outcomes.map((o) => o.method);
  const embedders = present.filter((l) => /embedder/.test(l) && !wanted.includes(l));
  const others = present.filter((l) => !wanted.includes(l) && !embedders.includes(l) && l !== labelOf("recent"));
  return [...wanted.filter((l) => present.includes(l)), ...others, ...embedders];
}

/**
 * The ablation table (issue 30): per data set and split, the BM25 ±1 baseline, the default,
 * each option and each embedder row, per budget (the change against the default in points), and —
 * where the set labels its questions — per category at 4k. `sets`: one entry per (set, split),
 * with the words saying which data the rows are on.
 */
export function renderAblationTable(sets: readonly { name: string; data: string; run: DialogueRun; categories?: Readonly<Record<number, string>> }[], reference = DIALOGUE_METHODS.find((m) => m.id === "recall")!.label): string {
  const lines: string[] = [];
  for (const { name, data, run, categories } of sets) {
    const cats = [...new Set(run.outcomes.flatMap((o) => o.results.map((r) => r.category)))].sort();
    const catHead = categories ? cats.map((c) => `${categories[c] ?? c} @4k (n = ${run.outcomes[0]?.results.filter((r) => r.category === c).length ?? 0})`) : [];
    lines.push(`**${name}** — ${data}; ${run.outcomes[0]?.results.length ?? 0} questions; all evidence in the window (change vs the default in points):`, "");
    lines.push(`| row | ${run.budgets.map((b) => `${b / 1000}k`).join(" | ")}${catHead.length ? ` | ${catHead.join(" | ")}` : ""} |`, `|---|${run.budgets.map(() => "---").join("|")}${catHead.map(() => "|---").join("")}|`);
    for (const label of ablationRows(run)) {
      const o = run.outcomes.find((x) => x.method === label)!;
      const cells = run.budgets.map((b) => {
        const r = dialogueRate(run, label, b);
        return label === reference ? `**${(100 * r).toFixed(1)} %**` : `${(100 * r).toFixed(1)} % (${signed(100 * (r - dialogueRate(run, reference, b)))})`;
      });
      const catCells = categories
        ? cats.map((c) => {
            const rs = o.results.filter((r) => r.category === c);
            return pct(rs.filter((r) => r.ok[4_000]).length, rs.length);
          })
        : [];
      lines.push(`| ${label} | ${[...cells, ...catCells].join(" | ")} |`);
    }
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}
