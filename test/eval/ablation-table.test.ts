import { describe, expect, it } from "vitest";
import { DIALOGUE_ABLATIONS, DIALOGUE_METHODS, renderAblationTable, type DialogueRun } from "./recall-dialogue-eval.js";

describe("the ablation table", () => {
  it("lists each row once: an option row that is also an embedder row (z-score mixing with the hashed embedder) is not repeated", () => {
    const labels = [...DIALOGUE_METHODS, ...DIALOGUE_ABLATIONS.filter((m) => m.id === "mixing"), { label: "recall + embedder-local (USE lite, z-score mixing)" }].map((m) => m.label);
    const run: DialogueRun = {
      split: "dev",
      budgets: [4_000],
      conversations: [],
      seconds: 0,
      outcomes: labels.map((method) => ({ method, msPerWindow: 0, results: [{ id: "q", category: 1, split: "dev", ok: { 4000: true } }] })),
    };
    const rows = renderAblationTable([{ name: "T", data: "test", run }]).split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| row"));
    const names = rows.map((l) => l.split(" | ")[0]!.slice(2));
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining([DIALOGUE_ABLATIONS.find((m) => m.id === "mixing")!.label, "recall + embedder-local (USE lite, z-score mixing)"]));
  });
});
