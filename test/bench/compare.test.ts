import { describe, expect, it } from "vitest";
import { compareScenario, comparisonTable, direction, formatValue, labelKey, parseFigure, verdict } from "./compare.js";
import { check, type Check } from "./scenario.js";

describe("parseFigure", () => {
  it("reads the first number of a figure and normalises times to ms", () => {
    expect(parseFigure("0.265 ms")).toEqual({ value: 0.265, unit: "ms" });
    expect(parseFigure("1.60 s")).toEqual({ value: 1600, unit: "ms" });
    expect(parseFigure("40.22 µs")).toEqual({ value: 0.04022, unit: "ms" });
    expect(parseFigure("99,461 msg/s")).toEqual({ value: 99_461, unit: "msg/s" });
    expect(parseFigure("1.03×")).toEqual({ value: 1.03, unit: "×" });
    expect(parseFigure("97.2 %")).toEqual({ value: 97.2, unit: "%" });
    expect(parseFigure("0 of 285")).toEqual({ value: 0, unit: "" });
    expect(parseFigure("0.614 ms / 3.10 ms")).toEqual({ value: 0.614, unit: "ms" });
    expect(parseFigure("≈ 2084290× (≈ 582 s vs 0.279 ms)")).toEqual({ value: 2_084_290, unit: "×" });
    expect(parseFigure("its turn > 12 ms at a smaller N (not run)")).toBeUndefined();
  });
});

describe("formatValue", () => {
  it("writes three significant figures or so, in the figure's unit", () => {
    expect(formatValue(1600, "ms")).toBe("1.60 s");
    expect(formatValue(0.265, "ms")).toBe("0.265 ms");
    expect(formatValue(100, "%")).toBe("100 %");
    expect(formatValue(96.8, "%")).toBe("96.8 %");
    expect(formatValue(2_084_290, "×")).toBe("2,084,290×");
    expect(formatValue(1.5, "×")).toBe("1.5×");
    expect(formatValue(99_461, "msg/s")).toBe("99,461 msg/s");
    expect(formatValue(285, "")).toBe("285");
  });
});

describe("direction", () => {
  it("follows the target, else the unit", () => {
    expect(direction({ target: "≤ 1 ms" }, { value: 1, unit: "ms" })).toBe("lower");
    expect(direction({ target: "≥ 95 %" }, { value: 1, unit: "%" })).toBe("higher");
    expect(direction({ target: "0" }, { value: 0, unit: "" })).toBe("lower");
    expect(direction({ target: "—" }, { value: 1, unit: "ms" })).toBe("lower");
    expect(direction({ target: "—" }, { value: 1, unit: "msg/s" })).toBe("higher");
    expect(direction({ target: "report" }, { value: 1, unit: "×" })).toBeUndefined();
  });
});

describe("verdict: beyond noise when the ranges over the repeats do not overlap", () => {
  it("calls a lower-is-better figure worse only when every HEAD repeat is above every baseline repeat", () => {
    expect(verdict([1.0, 1.1, 0.9], [1.3, 1.4, 1.2], "lower")).toBe("worse beyond noise");
    expect(verdict([1.0, 1.1, 0.9], [1.05, 1.4, 1.2], "lower")).toBe("within noise");
    expect(verdict([1.0, 1.1, 0.9], [0.5, 0.6, 0.7], "lower")).toBe("better beyond noise");
  });

  it("reverses for higher-is-better figures, and will not decide without two repeats or a direction", () => {
    expect(verdict([100, 110], [50, 60], "higher")).toBe("worse beyond noise");
    expect(verdict([1], [2], "lower")).toBe("one repeat: no noise estimate");
    expect(verdict([1, 1], [2, 2], undefined)).toBe("no direction");
    expect(verdict([Number.NaN, Number.NaN], [1, 2], "lower")).toBe("missing");
  });
});

describe("labelKey", () => {
  it("drops measured values a label carries in parentheses, keeps the rest", () => {
    expect(labelKey("turn median at N=10,000 (includes one fsync; disk floor 0.343 ms)")).toBe("turn median at N=10,000");
    expect(labelKey("flatness t(10,000)/t(1,000) of medians")).toBe("flatness t(10,000)/t(1,000) of medians");
    expect(labelKey("p99 / median, worst size (N=1,000): seed")).toBe("p99 / median, worst size: seed");
    expect(labelKey("resume 100,000 chat messages, 29.0 MB (median of 5)")).toBe("resume 100,000 chat messages, 29.0 MB (median of 5)");
  });
});

describe("compareScenario", () => {
  const run = (median: string, invalid: string): Check[] => [check("turn median", median, "≤ 1 ms", true), check("invalid windows", invalid, "0", true)];

  it("matches checks by label across repeats and gives the ratio of medians and the noise", () => {
    const rows = compareScenario("agent-loop", [run("0.20 ms", "0 of 95"), run("0.22 ms", "0 of 95"), run("0.21 ms", "0 of 95")], [run("0.30 ms", "0 of 95"), run("0.31 ms", "0 of 95"), run("0.32 ms", "0 of 95")]);
    const median = rows.find((r) => r.label === "turn median")!;
    expect(median.ratio).toBeCloseTo(0.31 / 0.21, 6);
    expect(median.noise).toBeCloseTo(0.02 / 0.21, 6);
    expect(median.verdict).toBe("worse beyond noise");
    const invalid = rows.find((r) => r.label === "invalid windows")!;
    expect(invalid.verdict).toBe("within noise");
    expect(invalid.noise).toBe(0);
  });

  it("renders one row per figure with both sides, the ratio, the noise and the verdict", () => {
    const rows = compareScenario("x", [run("1 ms", "0 of 1"), run("2 ms", "0 of 1")], [run("1.5 ms", "0 of 1"), run("1.5 ms", "0 of 1")]);
    const t = comparisonTable(rows, { baseline: "baseline 54d2d1b", head: "HEAD abc1234" });
    expect(t.columns).toHaveLength(7);
    expect(t.rows[0]).toEqual(["turn median", "≤ 1 ms", "1.50 ms (1.00 ms–2.00 ms)", "1.50 ms (1.50 ms–1.50 ms)", "1.00×", "67 %", "within noise"]);
    for (const row of t.rows) expect(row).toHaveLength(t.columns.length);
  });
});
