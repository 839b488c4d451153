/**
 * Recall quality inside the bench: the recall eval (test/eval/recall-eval.ts) run in-process, so
 * `npm run bench` alone writes its tables. The data sets, each labelled with what it is:
 * REALTALK (conversations people wrote; outside data, fetched per test/eval/data/realtalk/README.md),
 * its development split (looked at while recall was tuned) and its held-out split (not inspected
 * per question); QMSum (meetings people held, issue 30; fetched per test/eval/data/qmsum/README.md),
 * a fixed sample of its questions (QMSUM_SAMPLE — the whole set takes a quarter of an hour here;
 * `npm run eval:recall -- --set qmsum` runs all of it), both splits; our generator's sessions on the
 * seeds the ranking was tuned on, and on held-out seeds of the same generator.
 */
import { DIALOGUE_ABLATIONS, DIALOGUE_METHODS, OPTION_ROWS, PREVIOUS_DEFAULT, REALTALK_CATEGORIES, dialogueRate, renderAblationTable, runDialogueEval, type DialogueRun } from "../eval/recall-dialogue-eval.js";
import { QMSUM_DOMAINS } from "../eval/qmsum.js";
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { LOCAL_EMBEDDER_NAME } from "../../modules/embedder-local/index.js";
import { cachedVectorCount, vectorCacheFile } from "../eval/cached-embedder.js";
import type { DialogueConversation } from "../eval/realtalk.js";
import { LOCAL_MIXINGS, METHODS, TARGET_BUDGET, localEmbedderMethods, renderDialogueReport, renderQmsumReport, renderReport, runEval, runQmsum, type EvalRun } from "../eval/recall-eval.js";
import { loadQmsum, qmsumDir, sampleQuestions } from "../eval/qmsum.js";
import { loadRealtalk, realtalkDir } from "../eval/realtalk.js";
import { percent } from "./measure.js";
import { check, type BenchContext, type Check, type Scenario, type ScenarioResult } from "./scenario.js";

/** The option rows of issue 30 (run on the development splits, quick or not: the ablation table). */
const OPTION_METHODS = DIALOGUE_ABLATIONS.filter((m) => OPTION_ROWS.includes(m.id));

const RECALL_TARGET = 0.9;
const RECENT_CEILING = 0.2;

const REALTALK_DEV = "external: REALTALK development split (looked at while tuning)";
const REALTALK_HELDOUT = "external: REALTALK held-out split (not tuned on)";
const QMSUM_DEV = "external: QMSum development split, a fixed sample (looked at while tuning)";
const QMSUM_HELDOUT = "external: QMSum held-out split, a fixed sample (not tuned on)";
/** QMSum questions the bench runs (a fixed sample over both splits; `--quick` a smaller one). */
export const QMSUM_SAMPLE = { full: 300, quick: 120 } as const;
const SEEDS_TUNED = "ours: generator, seeds tuned on";
const SEEDS_HELDOUT = "ours: generator, held-out seeds";

export const recallQualityScenario: Scenario = {
  id: "recall-eval",
  title: "Recall quality: is a question's evidence in the window?",
  data: {
    short: "external: REALTALK, QMSum; ours: generator",
    detail:
      "REALTALK (arXiv:2502.13270, github.com/danny911kr/REALTALK @ b903e06): conversations between real people and questions written by the data set's authors — outside data we did not write; " +
      "its development split was looked at while recall was tuned, its held-out split was not (the quality figure to trust). " +
      `QMSum (arXiv:2104.05938, github.com/Yale-LILY/QMSum @ 83d7768, MIT): meetings people held (transcribed) and queries written by annotators with the answering turns marked; a fixed sample of ${QMSUM_SAMPLE.full} questions (${QMSUM_SAMPLE.quick} with --quick), both splits. ` +
      "Also our generator's sessions (test/eval/recall-corpus.ts): seeds 1001– were tuned on, seeds 9001– were not (same generator, so still our data).",
  },
  method:
    "The recall eval of `npm run eval:recall` (test/eval/recall-eval.ts, recall-dialogue-eval.ts), run in this process: each conversation is fed " +
    "message by message into context-simple; right after a question the window for the budget (2k, 4k, 8k tokens, gpt-4o counting) is requested, " +
    "and the question counts as answerable when EVERY evidence message is in it. The baseline to beat on REALTALK is a BM25 fill of the whole budget " +
    "with ±1 neighbouring messages. The ablation table (issue 30) gives the development splits with each option of recall turned on alone. `--quick`: REALTALK without the other ablation rows, the smaller QMSum sample, 2 tuned and 4 held-out generator seeds.",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const quick = ctx.options.quick;
    const log = (line: string) => ctx.log(`  ${line}`);
    const checks: Check[] = [];
    const markdown: string[] = [];
    const command = `npm run bench -- --only recall-eval${quick ? " --quick" : ""}`;

    const conversations = loadRealtalk();
    const data: Record<string, unknown> = {};
    const localNotes: string[] = [];
    const ablation: Parameters<typeof renderAblationTable>[0][number][] = [];
    if (conversations.length === 0) {
      checks.push({
        label: "REALTALK: default recall ≥ BM25 ±1 baseline",
        figure: `not measured: no Chat_*.json in ${realtalkDir()} (test/eval/data/realtalk/README.md says how to fetch it, or set REALTALK_DIR)`,
        target: "≥ baseline at every budget",
        status: "ERROR",
        data: REALTALK_DEV,
      });
    } else {
      const dev = await runDialogueEval(conversations, { split: "dev", methods: quick ? [...DIALOGUE_METHODS, ...OPTION_METHODS] : [...DIALOGUE_METHODS, ...DIALOGUE_ABLATIONS], log });
      ablation.push({ name: "REALTALK", data: REALTALK_DEV, run: dev, categories: REALTALK_CATEGORIES });
      const heldout = await runDialogueEval(conversations, { split: "heldout", methods: [...DIALOGUE_METHODS.filter((m) => m.id !== "embedder"), PREVIOUS_DEFAULT], log });
      const local = await addLocalRows(conversations, dev, heldout, log);
      localNotes.push(`REALTALK: ${local.note}`);
      checks.push(...baselineChecks(dev, "development", REALTALK_DEV), ...baselineChecks(heldout, "held-out", REALTALK_HELDOUT), ...localChecks(heldout, "REALTALK", REALTALK_HELDOUT, local));
      markdown.push(demote(renderDialogueReport(dev, heldout, command)));
      data.realtalk = { dev: rates(dev), heldout: rates(heldout) };
    }

    const meetings = loadQmsum();
    if (meetings.length === 0) {
      checks.push({
        label: "QMSum: default recall ≥ BM25 ±1 baseline",
        figure: `not measured: no meeting files in ${qmsumDir()} (test/eval/data/qmsum/README.md says how to fetch it, or set QMSUM_DIR)`,
        target: "≥ baseline at every budget",
        status: "ERROR",
        data: QMSUM_DEV,
      });
    } else {
      const limit = quick ? QMSUM_SAMPLE.quick : QMSUM_SAMPLE.full;
      const sample = sampleQuestions(meetings, limit);
      const { dev, heldout } = await runQmsum(sample, { quick: true, log, methods: [...DIALOGUE_METHODS, ...OPTION_METHODS] });
      const local = await addLocalRows(sample, dev, heldout!, log);
      localNotes.push(`QMSum: ${local.note}`);
      ablation.push({ name: "QMSum", data: QMSUM_DEV, run: dev, categories: QMSUM_DOMAINS });
      checks.push(...baselineChecks(dev, "development", QMSUM_DEV, "QMSum"), ...baselineChecks(heldout!, "held-out", QMSUM_HELDOUT, "QMSum"), ...localChecks(heldout!, "QMSum", QMSUM_HELDOUT, local));
      markdown.push(demote(renderQmsumReport(dev, heldout, command, { meetings: meetings.length, questions: meetings.reduce((s, c) => s + c.questions.length, 0), limit })));
      data.qmsum = { limit, dev: rates(dev), heldout: rates(heldout!) };
    }

    if (ablation.length > 0) {
      markdown.push(
        demote(
          [
            "## Ablation: what each part of recall earns (issue 30)",
            "",
            "Development splits only (looked at while recall was tuned: optimistic; the held-out figures are in the tables above). Each row is one config on the same questions: the BM25 ±1 baseline, the default (`{ \"use\": \"recall\" }`), the default with one option of issue 30 turned on or off, recall with the hashed test embedder (a stand-in, not a model: a hashed bag of words, computed in this run) with rank fusion and with z-score mixing, and recall with the offline model embedder-local (Universal Sentence Encoder lite, modules/embedder-local) with each mixing.",
            "",
            `Where the embedder-local rows come from: the model is not run by the bench (≈ 16–25 texts/s here: most of an hour for these sets). Its vectors are read from ${relative(process.cwd(), vectorCacheFile(LOCAL_EMBEDDER_NAME))} — written by \`npm run eval:recall -- --set realtalk --local-embedder\` and \`npm run eval:recall -- --set qmsum --limit ${QMSUM_SAMPLE.full} --local-embedder\` (test/eval/cached-embedder.ts: the model's own vectors keyed by sha256 of the model name and the text, so the rows rank exactly as a run with the model); everything else in these rows (index, recall, windows) is computed in this run. ${localNotes.join(" ")}`,
            "",
            renderAblationTable(ablation),
          ].join("\n"),
        ),
      );
    }

    const tuned = await runEval({ seeds: seeds(1001, quick ? 2 : 5), methods: METHODS, log });
    checks.push(...generatorChecks(tuned, SEEDS_TUNED));
    markdown.push(demote(renderReport(tuned, command, "recall-eval")));
    const heldoutSeeds = await runEval({ seeds: seeds(9001, quick ? 4 : 20), methods: METHODS.filter((m) => ["recent", "lexical", "cues"].includes(m.id)), log });
    checks.push(...generatorChecks(heldoutSeeds, SEEDS_HELDOUT));
    markdown.push(demote(renderReport(heldoutSeeds, command, "recall-eval-holdout")));
    data.generated = { tuned: { seeds: tuned.seeds, outcomes: summary(tuned) }, heldout: { seeds: heldoutSeeds.seeds, outcomes: summary(heldoutSeeds) } };

    return { checks, tables: [], notes: [], markdown, data };
  },
};

/** What adding the embedder-local rows gave: the rows added, or why they were skipped. */
interface LocalRows {
  added: boolean;
  note: string;
  /** The held-out row's label (the mixing recall uses by default). */
  heldoutLabel?: string;
}

/**
 * The embedder-local rows from cached vectors (see the ablation text): on the development split one
 * row per mixing (LOCAL_MIXINGS), on the held-out split the default mixing's. Skipped — with the
 * reason in `note` — when there is no cache file, or it lacks a text these questions need (the
 * model is never loaded here). The rows are added to `dev` and `heldout`.
 */
export async function addLocalRows(conversations: readonly DialogueConversation[], dev: DialogueRun, heldout: DialogueRun, log: (line: string) => void): Promise<LocalRows> {
  const file = vectorCacheFile(LOCAL_EMBEDDER_NAME);
  const make = `\`npm run eval:recall -- --set realtalk --local-embedder\` and \`-- --set qmsum --limit ${QMSUM_SAMPLE.full} --local-embedder\` make it`;
  if (!existsSync(file)) return { added: false, note: `embedder-local rows skipped: no cached vectors at ${relative(process.cwd(), file)} (${make}).` };
  try {
    const devRows = await runDialogueEval(conversations, { split: "dev", methods: await localEmbedderMethods(LOCAL_MIXINGS, { cacheOnly: true }), log });
    const heldoutMethods = await localEmbedderMethods([LOCAL_MIXINGS[0]!], { cacheOnly: true });
    const heldoutRows = await runDialogueEval(conversations, { split: "heldout", methods: heldoutMethods, log });
    dev.outcomes.push(...devRows.outcomes);
    heldout.outcomes.push(...heldoutRows.outcomes);
    return { added: true, note: `embedder-local rows from ${cachedVectorCount(LOCAL_EMBEDDER_NAME)} cached vectors.`, heldoutLabel: heldoutMethods[0]!.label };
  } catch (error) {
    const missing = (error as { code?: string; missing?: number }).code === "EVAL_VECTORS/MISSING";
    if (!missing) throw error;
    return { added: false, note: `embedder-local rows skipped: the cache (${relative(process.cwd(), file)}) lacks vectors for some texts of these questions — ${(error as Error).message.replace(/^EVAL_VECTORS\/MISSING: /, "")} (${make}).` };
  }
}

/** Issue 30's target for the model: on the held-out split, embedder-local adds ≥ 3 points at 4k over the default (model-free). */
export const LOCAL_GAIN_TARGET = 0.03;

function localChecks(heldout: DialogueRun, set: string, data: string, local: LocalRows): Check[] {
  const label = `${set} held-out: the default + embedder-local vs the default (model-free) at 4k`;
  const source = `${data}; embedder-local vectors read from the eval's cache`;
  if (!local.added) return [{ label, figure: `not measured: ${local.note}`, target: `≥ +${LOCAL_GAIN_TARGET * 100} points`, status: "INFO", data: source }];
  const recall = DIALOGUE_METHODS.find((m) => m.id === "recall")!.label;
  const gain = dialogueRate(heldout, local.heldoutLabel!, 4_000) - dialogueRate(heldout, recall, 4_000);
  return [{ ...check(label, `${percent(dialogueRate(heldout, local.heldoutLabel!, 4_000))} vs ${percent(dialogueRate(heldout, recall, 4_000))} (${gain >= 0 ? "+" : "−"}${Math.abs(100 * gain).toFixed(1)} points)`, `≥ +${LOCAL_GAIN_TARGET * 100} points`, gain >= LOCAL_GAIN_TARGET - 1e-9), data: source }];
}

/** The target of a development set (REALTALK's, QMSum's): the default config at or above the baseline at every budget. */
export function baselineChecks(run: DialogueRun, split: string, data: string, set = "REALTALK"): Check[] {
  const recall = DIALOGUE_METHODS.find((m) => m.id === "recall")!.label;
  const baseline = DIALOGUE_METHODS.find((m) => m.kind === "bm25")!.label;
  return run.budgets.map((budget) => {
    const r = dialogueRate(run, recall, budget);
    const b = dialogueRate(run, baseline, budget);
    return { ...check(`${set} ${split}: default recall vs BM25 ±1 baseline at ${budget / 1000}k`, `${percent(r)} vs ${percent(b)}`, "≥ baseline", r >= b), data };
  });
}

function generatorChecks(run: EvalRun, data: string): Check[] {
  const seedsLabel = `seeds ${run.seeds[0]}–${run.seeds[run.seeds.length - 1]}`;
  const at = (id: string) => {
    const label = METHODS.find((m) => m.id === id)!.label;
    const rs = run.outcomes.filter((o) => o.method === label && o.budget === TARGET_BUDGET);
    const answered = rs.reduce((s, o) => s + o.answered, 0);
    const questions = rs.reduce((s, o) => s + o.questions, 0);
    return answered / Math.max(1, questions);
  };
  const recall = at("lexical");
  const recent = at("recent");
  return [
    { ...check(`generator ${seedsLabel}: recall (lexical, default) at ${TARGET_BUDGET / 1000}k`, percent(recall), `≥ ${RECALL_TARGET * 100} %`, recall >= RECALL_TARGET), data },
    { ...check(`generator ${seedsLabel}: recent window alone at ${TARGET_BUDGET / 1000}k`, percent(recent), `< ${RECENT_CEILING * 100} %`, recent < RECENT_CEILING), data },
  ];
}

function seeds(first: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => first + i);
}

/** The eval renders whole-document headings; inside a scenario's section they sit one level lower. */
export function demote(markdown: string): string {
  return markdown.replace(/^(#{2,5}) /gm, "#$1 ");
}

function rates(run: DialogueRun): Record<string, Record<number, number>> {
  return Object.fromEntries(run.outcomes.map((o) => [o.method, Object.fromEntries(run.budgets.map((b) => [b, dialogueRate(run, o.method, b)]))]));
}

function summary(run: EvalRun): { method: string; budget: number; answered: number; questions: number }[] {
  const out = new Map<string, { method: string; budget: number; answered: number; questions: number }>();
  for (const o of run.outcomes) {
    const key = `${o.method}@${o.budget}`;
    const row = out.get(key) ?? { method: o.method, budget: o.budget, answered: 0, questions: 0 };
    row.answered += o.answered;
    row.questions += o.questions;
    out.set(key, row);
  }
  return [...out.values()];
}
