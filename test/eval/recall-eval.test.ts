import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISTANCE_BUCKETS, FACT_KINDS } from "./recall-corpus.js";
import { METHODS, RANK_DEPTH, renderReport, runEval, SECTION_NOTES, writeSection, type EvalRun } from "./recall-eval.js";

// The harness on a tiny config (one seed, 6 facts, distances 60–120 turns, 4k only: ~1 s). It
// checks the harness's structure, not recall's score — the score is measured, not asserted
// (BENCHMARKS.md, `npm run eval:recall`).
describe("recall evaluation harness", () => {
  let run: EvalRun;
  beforeAll(async () => {
    run = await runEval({ seeds: [7], budgets: [4_000], corpus: { facts: 6, maxDistance: 120 } });
  });

  it("one outcome per method and budget, every question counted once, with its kind, distance and bucket", () => {
    expect(run.outcomes).toHaveLength(METHODS.length);
    expect(run.sessions).toHaveLength(1);
    for (const o of run.outcomes) {
      expect(o.budget).toBe(4_000);
      expect(o.questions).toBe(6);
      expect(o.results).toHaveLength(6);
      expect(o.answered).toBe(o.results.filter((r) => r.ok).length);
      expect(new Set(o.results.map((r) => r.id)).size).toBe(6);
      for (const r of o.results) {
        expect(FACT_KINDS).toContain(r.kind);
        expect(r.distance).toBeGreaterThanOrEqual(60);
        expect(r.distance).toBeLessThanOrEqual(120);
        expect(r.bucket).toBe(DISTANCE_BUCKETS[0].label);
        expect(r.windowMessages).toBeGreaterThan(0);
        if (r.kind === "changed-mind") expect(typeof r.staleInWindow).toBe("boolean");
        else expect(r.staleInWindow).toBeUndefined();
      }
    }
  });

  it("the recent window cannot answer questions about facts ≥ 60 turns old; recall ranks and brings back some", () => {
    const [recent, lexical, hybrid] = run.outcomes;
    expect(recent!.answered / recent!.questions).toBeLessThan(0.2);
    for (const r of recent!.results) expect(r.rank).toBeUndefined();
    for (const o of [lexical!, hybrid!]) {
      for (const r of o.results) {
        expect(r.rank === null || (Number.isInteger(r.rank) && r.rank! >= 1 && r.rank! <= RANK_DEPTH)).toBe(true);
      }
    }
    expect(lexical!.answered).toBeGreaterThan(0);
  });

  it("renders the report: per-budget, per-kind and per-distance tables, the targets with PASS/MISS, the misses", () => {
    const report = renderReport(run, "npm run eval:recall -- --test");
    expect(report.startsWith(`## ${SECTION_NOTES["recall-eval"]!.heading}\n`)).toBe(true);
    expect(report).toContain("Command: `npm run eval:recall -- --test`");
    expect(report).toContain("| method | 4k tokens |");
    expect(report).toContain(`| method (at 4k) | ${FACT_KINDS.join(" | ")} |`);
    expect(report).toMatch(/\| method \(4k\) \| 60–149 turns \(n = 6\) \| 150–299 turns \(n = 0\) \| 300–400 turns \(n = 0\) \|/);
    expect(report).toMatch(/Targets: recall \(lexical, model-free\) ≥ 90 % at 4k — measured [\d.]+ % \((PASS|MISS)\); the recent window < 20 % at 4k — measured [\d.]+ % \((PASS|MISS)\)/);
    expect(report).toMatch(/distance \(user turns from evidence to question\) min \d+/);
    for (const method of METHODS) expect(report).toContain(`| ${method.label} |`);
    const lexical = run.outcomes[1]!;
    if (lexical.answered < lexical.questions) expect(report).toMatch(/Lexical recall misses at 4k \(\d+; \d+ with the evidence not among/);
  });

  it("heads each BENCHMARKS block with what its seeds were used for", () => {
    const holdout = renderReport(run, "npm run eval:recall -- --test", "recall-eval-holdout");
    expect(holdout.startsWith(`## ${SECTION_NOTES["recall-eval-holdout"]!.heading}\n\n${SECTION_NOTES["recall-eval-holdout"]!.note}\n`)).toBe(true);
    expect(renderReport(run, "x")).toContain(SECTION_NOTES["recall-eval"]!.note);
    expect(renderReport(run, "x", "my-run")).toMatch(/^## Recall evaluation: my-run\n\nCommand:/);
  });

  describe("writeSection", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "recall-eval-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("replaces only the marked block (a `$` in the body is literal) and appends it when absent", () => {
      const file = join(dir, "B.md");
      writeFileSync(file, "# head\n\n<!-- begin:recall-eval -->\nold\n<!-- end:recall-eval -->\n\ntail\n");
      writeSection(file, "recall-eval", "new $& body");
      expect(readFileSync(file, "utf8")).toBe("# head\n\n<!-- begin:recall-eval -->\nnew $& body\n<!-- end:recall-eval -->\n\ntail\n");
      const other = join(dir, "C.md");
      writeFileSync(other, "# only\n");
      writeSection(other, "recall-eval", "x");
      expect(readFileSync(other, "utf8")).toBe("# only\n\n<!-- begin:recall-eval -->\nx\n<!-- end:recall-eval -->\n");
    });
  });
});
