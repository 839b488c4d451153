import { h } from "preact";
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  color: string;
  dash?: number[];
}

export interface ChartProps {
  id: string;
  title: string;
  x: number[];
  series: ChartSeries[];
  /** Unit shown on the y axis ("tokens", "%"). */
  unit: string;
  /** A fixed y range (percentages: [0, 100]); default: fitted to the data. */
  yRange?: [number, number];
  /** Called with the turn (x value) the user clicked. */
  onPick?: (x: number) => void;
}

/** A line chart over turns (uPlot on a canvas: data never becomes markup). */
export function Chart(props: ChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (element === null) return;
    const width = Math.max(320, element.clientWidth || 640);
    const options: uPlot.Options = {
      width,
      height: 220,
      scales: { x: { time: false }, ...(props.yRange ? { y: { range: props.yRange } } : {}) },
      // Turns are whole numbers: ticks at 1, 2, 5, 10 … apart, never between two turns.
      axes: [{ label: "turn", incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 5_000, 10_000] }, { label: props.unit, size: 70, values: (_u, ticks) => ticks.map((t) => compact(t)) }],
      series: [{ label: "turn" }, ...props.series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, ...(s.dash ? { dash: s.dash } : {}), spanGaps: false }))],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new uPlot(options, [props.x, ...props.series.map((s) => s.values)] as uPlot.AlignedData, element);
    const pick = () => {
      const idx = plot.cursor.idx;
      if (idx !== null && idx !== undefined && props.onPick) props.onPick(props.x[idx]!);
    };
    plot.over.addEventListener("click", pick);
    return () => {
      plot.over.removeEventListener("click", pick);
      plot.destroy();
    };
  }, [props.x, props.series]);
  return h("figure", { class: "chart", id: props.id }, h("figcaption", null, props.title), h("div", { ref: holder, class: "chart-canvas" }));
}

function compact(n: number): string {
  if (Math.abs(n) >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (Math.abs(n) >= 10_000) return `${Math.round(n / 1_000)}k`;
  return String(n);
}
