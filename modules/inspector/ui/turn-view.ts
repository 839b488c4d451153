/**
 * One turn's window on the page. What was SENT (the context manager's record: budget, model, tool
 * definitions) is shown as the truth; a replay is shown only as a SIMULATION, labelled with its
 * module, budget and model, which the user picks (SimulationControl). With no record the page says
 * every window it shows is a simulation. The window's messages come first; the messages left out
 * are folded into one line per run and reason.
 */
import { Fragment, h } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { InspectorSession, SimulationOptions } from "../inspector-data.js";
import { timeLabel } from "../view-model/session-list.js";
import { turnWindow, type DroppedFold, type TurnWindowView, type WindowOrigin, type WindowRow } from "../view-model/turn-window.js";

const DECISION_ORDER = ["kept", "truncated", "summarized", "recalled", "dropped"] as const;

export interface TurnViewProps {
  session: InspectorSession;
  turn: number;
  /** The address of another turn (undefined: the session without a turn). */
  hrefOf: (turn?: number) => string;
  simulation: SimulationOptions;
  /** Absent where no server can replay (a report file): the page then offers no simulation form. */
  onSimulate?: ((options: SimulationOptions) => void) | undefined;
}

export function TurnView({ session, turn, hrefOf, simulation, onSimulate }: TurnViewProps) {
  const hasRecord = session.recorded?.some((t) => t.turn === turn) === true;
  const [origin, setOrigin] = useState<WindowOrigin>(hasRecord ? "sent" : "simulation");
  useEffect(() => setOrigin(hasRecord ? "sent" : "simulation"), [turn, hasRecord]);
  const view = useMemo(() => turnWindow(session, turn, origin), [session, turn, origin]);
  // Opening a turn (a link, a click on a chart) brings its window into view.
  useEffect(() => document.getElementById("turn")?.scrollIntoView({ block: "start" }), [turn]);
  const turnCount = Math.max(session.recorded?.at(-1)?.turn ?? 0, session.analysis?.turns.at(-1)?.turn ?? 0);
  const header = h(
    "h2",
    null,
    `Turn ${turn} of ${turnCount}`,
    " ",
    turn > 1 ? h("a", { href: hrefOf(turn - 1), class: "nav" }, "← previous") : null,
    " ",
    turn < turnCount ? h("a", { href: hrefOf(turn + 1), class: "nav" }, "next →") : null,
    " ",
    h("a", { href: hrefOf(), class: "nav" }, "close"),
  );
  const tabs = h(
    "div",
    { class: "origin-tabs", role: "tablist" },
    h("button", { type: "button", id: "origin-sent", class: `chip${origin === "sent" ? " on" : ""}`, disabled: !hasRecord, onClick: () => setOrigin("sent") }, "what was sent"),
    h("button", { type: "button", id: "origin-simulation", class: `chip${origin === "simulation" ? " on" : ""}`, onClick: () => setOrigin("simulation") }, "simulation"),
  );
  const noRecord = hasRecord
    ? null
    : h("p", { class: "note", id: "no-record" }, session.recordError ? `The record of what was sent cannot be read (${session.recordError}): the window below is a simulation.` : "No record of what was sent exists for this turn (the context module kept none): the window below is a simulation, not what the model received.");
  const control = origin === "simulation" && onSimulate !== undefined ? h(SimulationControl, { session, simulation, onSimulate }) : null;
  if (view === undefined) {
    const why = origin === "simulation" ? (session.analysisError ? `no simulation: ${session.analysisError}` : session.analysisPending || session.analysis === undefined ? "the simulation is being computed…" : `no turn ${turn} in the simulation`) : `no record of turn ${turn}`;
    return h("section", { id: "turn", class: "turn" }, header, tabs, noRecord, control, h("p", { class: origin === "simulation" && !session.analysisError ? "muted" : "error" }, why));
  }
  return h("section", { id: "turn", class: `turn origin-${origin}` }, header, tabs, noRecord, control, h(WindowFacts, { view, session }), h(WindowTable, { view }));
}

function WindowFacts({ view, session }: { view: TurnWindowView; session: InspectorSession }) {
  const t = view.turn;
  const n = (x: number) => x.toLocaleString("en");
  const whole = `the whole history was ${t.historyMessages} messages, ${n(t.historyTokens)} tokens.`;
  let facts;
  if (view.recorded !== undefined) {
    const r = view.recorded;
    facts = h(
      Fragment,
      null,
      h("p", { class: "facts", id: "sent-facts" }, h("span", { class: "badge sent" }, "sent"), ` Sent to ${r.model} before message #${t.messageIndex + 1} (recorded ${timeLabel(r.at)}): ${t.windowMessages} messages, ${n(t.windowTokens)} tokens of a ${n(r.budget)}-token budget; ${whole}`),
      h(
        "p",
        { class: "facts", id: "sent-tools" },
        r.tools.length === 0 ? "No tool definitions were sent." : `${r.tools.length} tool definition${r.tools.length === 1 ? "" : "s"} sent (${n(t.toolTokens)} tokens): `,
        r.tools.map((tool, i) => h(Fragment, null, i > 0 ? ", " : "", h("code", null, tool.name), ` ${n(tool.tokens)}`)),
        r.strategies.length > 1 ? ` · compaction: ${r.strategies.filter((s) => s !== "window").join(", ")}` : "",
      ),
    );
  } else {
    const a = session.analysis!;
    const s = view.simulated!;
    facts = h(
      Fragment,
      null,
      h(
        "p",
        { class: "facts simulation", id: "simulation-facts" },
        h("span", { class: "badge simulation" }, "simulation"),
        ` Not what was sent: the session replayed through ${a.module} with ${a.model} under a ${n(t.budget)}-token budget${a.budget === undefined ? " (the model's window − its output − the margin)" : ""}. Before message #${t.messageIndex + 1} it builds ${t.windowMessages} messages, ${n(t.windowTokens)} tokens, with ${n(t.toolTokens)} tokens of tool definitions; ${whole} Prefix kept from the previous window: ${(s.prefixKept * 100).toFixed(1)} %.`,
      ),
    );
  }
  return h(
    Fragment,
    null,
    facts,
    h(
      "div",
      { class: "token-bar", id: "token-bar", role: "img", "aria-label": view.bar.map((s) => `${s.label} ${s.tokens}`).join(", ") },
      view.bar.filter((s) => s.tokens > 0).map((s) => h("div", { class: `segment ${s.key}`, style: { width: `${Math.max(0.4, s.share * 100)}%` }, title: `${s.label}: ${n(s.tokens)} tokens` })),
    ),
    h("ul", { class: "legend" }, view.bar.map((s) => h("li", { class: `legend-${s.key}` }, h("span", { class: `swatch ${s.key}` }), `${s.label}: ${n(s.tokens)}`))),
  );
}

/** The budget and model a simulation replays under: the user's choice, sent to the server's analysis. */
function SimulationControl({ session, simulation, onSimulate }: { session: InspectorSession; simulation: SimulationOptions; onSimulate: (options: SimulationOptions) => void }) {
  const [budget, setBudget] = useState(simulation.budget === undefined ? "" : String(simulation.budget));
  const [model, setModel] = useState(simulation.model ?? "");
  const sentBudget = session.recorded?.at(-1)?.budget;
  const sentModel = session.recorded?.at(-1)?.model;
  const submit = (e: Event) => {
    e.preventDefault();
    const chosen: SimulationOptions = {};
    const b = Number(budget);
    if (budget.trim() !== "" && Number.isSafeInteger(b) && b > 0) chosen.budget = b;
    if (model.trim() !== "") chosen.model = model.trim();
    onSimulate(chosen);
  };
  return h(
    "form",
    { class: "simulation-control", id: "simulation-control", onSubmit: submit },
    h("span", null, "Simulate under "),
    h("label", null, "budget ", h("input", { id: "sim-budget", type: "number", min: "1", step: "1", placeholder: sentBudget === undefined ? "model default" : String(sentBudget), value: budget, onInput: (e: Event) => setBudget((e.target as HTMLInputElement).value) })),
    h("label", null, " model ", h("input", { id: "sim-model", type: "text", placeholder: sentModel ?? "gpt-4o", value: model, onInput: (e: Event) => setModel((e.target as HTMLInputElement).value) })),
    " ",
    h("button", { type: "submit", class: "chip" }, "replay"),
  );
}

function WindowTable({ view }: { view: TurnWindowView }) {
  const [only, setOnly] = useState<string>("all");
  const filtered = only === "all" ? undefined : view.rows.filter((r) => r.decision === only);
  return h(
    Fragment,
    null,
    h(
      "div",
      { class: "decision-filter" },
      h("button", { type: "button", class: `chip all${only === "all" ? " on" : ""}`, onClick: () => setOnly("all") }, `all ${view.rows.length}`),
      DECISION_ORDER.map((d) => h("button", { type: "button", class: `chip ${d}${only === d ? " on" : ""}`, onClick: () => setOnly(d) }, `${d} ${view.counts[d]}`)),
    ),
    view.explained ? null : h("p", { class: "note" }, "The context module offers no explain: decisions are unknown."),
    view.syntheticMessages > 0
      ? h("p", { class: "muted", id: "synthetic-note" }, `The window also holds ${view.syntheticMessages} message${view.syntheticMessages === 1 ? "" : "s"} the history does not (a summary, a placeholder or a synthetic tool result), counted in "history kept".`)
      : null,
    h(
      "table",
      { class: "grid window-table" },
      h("thead", null, h("tr", null, ["#", "role", "decision", "by", "why", "tokens", "content"].map((c) => h("th", null, c)))),
      filtered !== undefined
        ? h("tbody", null, filtered.map((row) => h(WindowRowView, { row, key: row.index })))
        : h(Fragment, null, h("tbody", { id: "in-window" }, view.inWindow.map((row) => h(WindowRowView, { row, key: row.index }))), view.folds.map((fold) => h(FoldRows, { fold, key: fold.from }))),
    ),
  );
}

/** A run of messages left out, one line until the user opens it. */
function FoldRows({ fold }: { fold: DroppedFold }) {
  const [open, setOpen] = useState(false);
  const count = fold.to - fold.from;
  const label = count === 1 ? `#${fold.from + 1}` : `#${fold.from + 1}–#${fold.to}`;
  return h(
    "tbody",
    { class: "fold-run" },
    h(
      "tr",
      { class: `fold-row decision-${fold.decision.replace(" ", "-")}` },
      h("td", { class: "num" }, label),
      h("td", null, `${count.toLocaleString("en")} message${count === 1 ? "" : "s"}`),
      h("td", null, h("span", { class: `badge ${fold.decision.replace(" ", "-")}` }, fold.decision)),
      h("td", null, fold.by),
      h("td", { class: "reason" }, fold.reason),
      h("td", null),
      h("td", null, h("button", { type: "button", class: "fold", onClick: () => setOpen(!open) }, open ? "fold" : `show ${count.toLocaleString("en")}`)),
    ),
    open ? fold.rows.map((row) => h(WindowRowView, { row, key: row.index })) : null,
  );
}

function WindowRowView({ row }: { row: WindowRow }) {
  return h(
    "tr",
    { class: `decision-${row.decision.replace(" ", "-")}`, "data-index": row.index },
    h("td", { class: "num" }, String(row.index + 1)),
    h("td", null, h("span", { class: `role ${row.role}` }, row.role)),
    h("td", null, h("span", { class: `badge ${row.decision.replace(" ", "-")}` }, row.decision)),
    h("td", { title: row.strategy }, row.by),
    h("td", { class: "reason" }, row.reason),
    h("td", { class: "num" }, row.tokens === undefined ? "" : String(row.tokens)),
    h("td", { class: "preview" }, row.preview),
  );
}
