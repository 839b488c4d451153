/**
 * `npm run eval:recall` — does the window hold what a question needs? (issue 7)
 *
 * For each seed, a synthetic conversation with planted facts and later questions
 * (test/eval/recall-corpus.ts) is fed message by message into context-simple, once per method
 * and budget. Right after each question is added, the window for that budget is requested: the
 * question is answerable when EVERY evidence message (by metadata.id) is in the window.
 *
 * Methods: the recent window alone (the default assembler: what every recency strategy keeps),
 * `recall` with the default lexical (BM25) ranking, and `recall` with a hashed test embedder fused
 * in (test/eval/hashed-embedder.ts — a stand-in, not a model). Budgets 2k, 4k, 8k tokens.
 *
 *   npm run eval:recall [-- --seeds 5] [--quick] [--json] [--write]
 * `--write` puts the table into BENCHMARKS.md between `<!-- begin:recall-eval -->` markers (the
 * bench keeps that block when it rewrites the file).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import type { Message } from "../../contracts/generated/message.js";
import { EMBEDDER_CAPABILITY } from "../../contracts/search.js";
import { Coordinator } from "../../core/coordinator.js";
import type { HistoryContextManager } from "../../modules/context/history-context-manager.js";
import { mount } from "../../modules/context-simple/index.js";
import { hashedEmbedder } from "./hashed-embedder.js";
import { generateRecallConversation, type FactKind, type RecallConversation } from "./recall-corpus.js";

interface Method {
  label: string;
  strategies: unknown[];
  embedder: boolean;
}

export const METHODS: readonly Method[] = [
  { label: "recent window (default, no recall)", strategies: [], embedder: false },
  { label: "recall, lexical (BM25, default)", strategies: [{ use: "recall" }], embedder: false },
  { label: "recall + hashed test embedder (RRF)", strategies: [{ use: "recall" }], embedder: true },
];
export const BUDGETS = [2_000, 4_000, 8_000] as const;

export interface Outcome {
  seed: number;
  method: string;
  budget: number;
  questions: number;
  answered: number;
  byKind: Partial<Record<FactKind, { questions: number; answered: number }>>;
  missed: string[];
  msPerWindow: number;
}

/** Feeds one conversation through one method at one budget; returns what was answerable. */
export async function evaluate(conversation: RecallConversation, method: Method, budget: number): Promise<Outcome> {
  const coordinator = new Coordinator({ sessionId: `eval-${conversation.seed}` });
  if (method.embedder) coordinator.registerCapability(EMBEDDER_CAPABILITY, hashedEmbedder);
  const context = (await mount(coordinator, { strategies: method.strategies as never })) as HistoryContextManager;
  const byId = new Map(conversation.questions.map((q) => [q.id, q]));
  const outcome: Outcome = { seed: conversation.seed, method: method.label, budget, questions: 0, answered: 0, byKind: {}, missed: [], msPerWindow: 0 };
  let windowMs = 0;
  try {
    for (const message of conversation.messages) {
      await context.addMessage(message);
      const question = byId.get(String(message.metadata?.id));
      if (!question) continue;
      // Recall never waits for a backlog being indexed in the background; make sure none is pending.
      await (context.searchIndex as { catchUp?: () => Promise<void> }).catchUp?.();
      const t0 = performance.now();
      const window: Message[] = await context.getMessagesForRequest(budget);
      windowMs += performance.now() - t0;
      const ids = new Set(window.map((m) => m.metadata?.id));
      const ok = question.evidence.every((id) => ids.has(id));
      outcome.questions++;
      const kind = (outcome.byKind[question.kind] ??= { questions: 0, answered: 0 });
      kind.questions++;
      if (ok) {
        outcome.answered++;
        kind.answered++;
      } else outcome.missed.push(`${question.kind}: ${question.text}`);
    }
  } finally {
    await coordinator.cleanup();
  }
  outcome.msPerWindow = outcome.questions ? windowMs / outcome.questions : 0;
  return outcome;
}

const pct = (a: number, b: number) => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);

export function renderTable(outcomes: readonly Outcome[], seeds: readonly number[]): string {
  const lines: string[] = [];
  lines.push(`| method | ${BUDGETS.map((b) => `${b / 1000}k tokens`).join(" | ")} |`);
  lines.push(`|---|${BUDGETS.map(() => "---").join("|")}|`);
  for (const method of METHODS) {
    const cells = BUDGETS.map((budget) => {
      const rows = outcomes.filter((o) => o.method === method.label && o.budget === budget);
      const q = rows.reduce((s, o) => s + o.questions, 0);
      const a = rows.reduce((s, o) => s + o.answered, 0);
      const perSeed = seeds.map((seed) => {
        const o = rows.find((r) => r.seed === seed);
        return o ? `${Math.round((100 * o.answered) / Math.max(1, o.questions))}` : "—";
      });
      return `**${pct(a, q)}** (${a}/${q}; per seed ${perSeed.join(", ")})`;
    });
    lines.push(`| ${method.label} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

export function renderKinds(outcomes: readonly Outcome[], budget: number): string {
  const kinds: FactKind[] = ["name", "number", "date", "preference", "decision", "changed-mind"];
  const lines = [`| method (at ${budget / 1000}k) | ${kinds.join(" | ")} |`, `|---|${kinds.map(() => "---").join("|")}|`];
  for (const method of METHODS) {
    const rows = outcomes.filter((o) => o.method === method.label && o.budget === budget);
    const cells = kinds.map((k) => {
      const q = rows.reduce((s, o) => s + (o.byKind[k]?.questions ?? 0), 0);
      const a = rows.reduce((s, o) => s + (o.byKind[k]?.answered ?? 0), 0);
      return pct(a, q);
    });
    lines.push(`| ${method.label} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  const quick = argv.includes("--quick");
  const seedsArg = argv.indexOf("--seeds");
  const seedCount = seedsArg >= 0 ? Number(argv[seedsArg + 1]) : quick ? 2 : 5;
  if (!Number.isInteger(seedCount) || seedCount < 1) {
    process.stderr.write("--seeds expects a whole number ≥ 1\n");
    return 2;
  }
  const seeds = Array.from({ length: seedCount }, (_, i) => 1001 + i);
  const started = Date.now();
  const outcomes: Outcome[] = [];
  const sizes: string[] = [];
  for (const seed of seeds) {
    const conversation = generateRecallConversation({ seed });
    sizes.push(`${conversation.messages.length} messages / ${conversation.questions.length} questions`);
    for (const method of METHODS) {
      for (const budget of BUDGETS) {
        const o = await evaluate(conversation, method, budget);
        outcomes.push(o);
        process.stderr.write(`[eval] seed ${seed} · ${method.label} · ${budget}: ${o.answered}/${o.questions} (${o.msPerWindow.toFixed(2)} ms/window)\n`);
      }
    }
  }
  if (argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify({ seeds, outcomes }, null, 2)}\n`);
    return 0;
  }
  const target = outcomes.filter((o) => o.method === METHODS[1]!.label && o.budget === 4_000);
  const recallAt4k = target.reduce((s, o) => s + o.answered, 0) / Math.max(1, target.reduce((s, o) => s + o.questions, 0));
  const recent = outcomes.filter((o) => o.method === METHODS[0]!.label && o.budget === 4_000);
  const recentAt4k = recent.reduce((s, o) => s + o.answered, 0) / Math.max(1, recent.reduce((s, o) => s + o.questions, 0));
  const misses = outcomes.filter((o) => o.method === METHODS[1]!.label && o.budget === 4_000).flatMap((o) => o.missed.map((m) => `seed ${o.seed}: ${m}`));
  const report = [
    "## Recall evaluation (issue 7)",
    "",
    `Command: \`npm run eval:recall${quick ? " -- --quick" : ""}\` (test/eval/recall-eval.ts). Date ${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, Node ${process.version}; ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    "",
    `Seeded synthetic sessions (test/eval/recall-corpus.ts; seeds ${seeds.join(", ")}: ${sizes.join("; ")}) with planted facts (names, numbers, dates, preferences, decisions, changed minds) asked about ≥ 60 turns later in other words (partial overlap: one or two topic words shared; filler mentions the same topics as distractors). A question counts as answerable when every evidence message is in the window requested right after it (context-simple, gpt-4o counting).`,
    "",
    renderTable(outcomes, seeds),
    "",
    renderKinds(outcomes, 4_000),
    "",
    `Targets: recall (lexical, model-free) ≥ 90 % at 4k — measured ${(100 * recallAt4k).toFixed(1)} % (${recallAt4k >= 0.9 ? "PASS" : "MISS"}); the recent window < 20 % at 4k — measured ${(100 * recentAt4k).toFixed(1)} % (${recentAt4k < 0.2 ? "PASS" : "MISS"}). The test embedder is a hashed bag of words with a 30-word synonym table (a stand-in for a model, not a claim about one).`,
    ...(misses.length ? ["", `Lexical recall misses at 4k (${misses.length}):`, ...misses.slice(0, 12).map((m) => `- ${m}`)] : []),
  ].join("\n");
  process.stdout.write(`${report}\n`);
  if (argv.includes("--write")) writeSection("BENCHMARKS.md", "recall-eval", report);
  return 0;
}

/** Replaces (or appends) the marked block in a markdown file. */
export function writeSection(file: string, name: string, body: string): void {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = "";
  }
  const block = `<!-- begin:${name} -->\n${body}\n<!-- end:${name} -->`;
  const pattern = new RegExp(`<!-- begin:${name} -->[\\s\\S]*?<!-- end:${name} -->`);
  text = pattern.test(text) ? text.replace(pattern, block) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

if (process.argv[1]?.endsWith("recall-eval.mjs")) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
