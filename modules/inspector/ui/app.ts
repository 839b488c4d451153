import { Fragment, h } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { InspectorSession, InspectorSessionSummary, SessionAnalysisResult } from "../inspector-data.js";
import { foldText, type FoldedText } from "../view-model/fold-text.js";
import { sessionCharts } from "../view-model/session-charts.js";
import { sessionRows, timeLabel } from "../view-model/session-list.js";
import { timeline, type TimelineEntry } from "../view-model/timeline.js";
import { turnWindow, type WindowRow } from "../view-model/turn-window.js";
import { Chart } from "./chart.js";

/** Where the page's data comes from: the server's routes, or the report's embedded session. */
export interface PageData {
  /** Undefined in a report (one session, no list). */
  list?: () => Promise<InspectorSessionSummary[]>;
  session(source: string, sessionId: string): Promise<InspectorSession>;
  /** The analysis of a session that came with `analysisPending`. */
  analysis?: (source: string, sessionId: string) => Promise<SessionAnalysisResult>;
  /** Calls `onChange` when the session gained messages; stops when `signal` aborts. */
  follow?: (source: string, sessionId: string, onChange: () => void, signal: AbortSignal) => void;
  /** The report's session: the page opens it instead of a list. */
  only?: { source: string; sessionId: string };
}

export type Route = { view: "list" } | { view: "session"; source: string; sessionId: string; turn?: number };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").map((p) => decodeURIComponent(p));
  if (parts[0] === "s" && parts[1] && parts[2]) {
    const turn = parts[3] === "t" ? Number(parts[4]) : undefined;
    return turn !== undefined && Number.isInteger(turn) && turn > 0 ? { view: "session", source: parts[1], sessionId: parts[2], turn } : { view: "session", source: parts[1], sessionId: parts[2] };
  }
  return { view: "list" };
}

export function routeHash(route: Route): string {
  if (route.view === "list") return "#/";
  const base = `#/s/${encodeURIComponent(route.source)}/${encodeURIComponent(route.sessionId)}`;
  return route.turn === undefined ? base : `${base}/t/${route.turn}`;
}

export function App({ data, onNeedToken }: { data: PageData; onNeedToken: (message: string) => void }) {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  const shown: Route = route.view === "list" && data.only ? { view: "session", ...data.only } : route;
  return h(
    "div",
    { class: "page" },
    h("header", { class: "top" }, h("a", { href: "#/", class: "brand" }, "amplifier-ts Inspector"), data.only ? h("span", { class: "muted" }, " · report") : null),
    shown.view === "list" ? h(SessionList, { data, onNeedToken }) : h(SessionPage, { data, route: shown, onNeedToken, key: `${shown.source}/${shown.sessionId}` }),
  );
}

function SessionList({ data, onNeedToken }: { data: PageData; onNeedToken: (message: string) => void }) {
  const [sessions, setSessions] = useState<InspectorSessionSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [filter, setFilter] = useState("");
  useEffect(() => {
    data.list?.().then(setSessions, (e: Error & { status?: number }) => (e.status === 401 ? onNeedToken(e.message) : setError(e.message)));
  }, []);
  const rows = useMemo(() => sessionRows(sessions ?? [], filter), [sessions, filter]);
  if (error !== undefined) return h("p", { class: "error" }, error);
  if (sessions === undefined) return h("p", { class: "muted" }, "loading sessions…");
  return h(
    "section",
    { id: "sessions" },
    h("h1", null, "Sessions"),
    h("input", { id: "filter", type: "search", placeholder: "filter by session id or source", value: filter, onInput: (e: Event) => setFilter((e.target as HTMLInputElement).value) }),
    h(
      "table",
      { class: "grid" },
      h("thead", null, h("tr", null, ["session", "source", "messages", "events", "last activity", ""].map((c) => h("th", null, c)))),
      h(
        "tbody",
        null,
        rows.map((row) =>
          h(
            "tr",
            { key: row.key, class: "session-row" },
            h("td", null, h("a", { href: routeHash({ view: "session", source: row.source, sessionId: row.sessionId }) }, row.sessionId)),
            h("td", null, row.source),
            h("td", { class: "num" }, String(row.messages)),
            h("td", { class: "num" }, String(row.events)),
            h("td", null, row.lastActivityLabel),
            h("td", null, row.live ? h("span", { class: "badge live" }, "live") : null),
          ),
        ),
      ),
    ),
    rows.length === 0 ? h("p", { class: "muted" }, sessions.length === 0 ? "no sessions" : "no session matches the filter") : null,
  );
}

function SessionPage({ data, route, onNeedToken }: { data: PageData; route: Extract<Route, { view: "session" }>; onNeedToken: (message: string) => void }) {
  const [session, setSession] = useState<InspectorSession | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [updates, setUpdates] = useState(0);
  useEffect(() => {
    let current = true;
    const failed = (e: Error & { status?: number }) => (e.status === 401 ? onNeedToken(e.message) : setError(e.message));
    data.session(route.source, route.sessionId).then((loaded) => {
      if (!current) return;
      // A live update keeps the analysis on screen until the new one arrives.
      setSession((shown) => (loaded.analysisPending && shown?.analysis ? { ...loaded, analysis: shown.analysis } : loaded));
      if (!loaded.analysisPending || !data.analysis) return;
      data.analysis(route.source, route.sessionId).then((result) => {
        if (!current) return;
        const merged: InspectorSession = { ...loaded, analysisPending: false, messages: loaded.messages.map((m) => (result.tokens?.[m.index] === undefined ? m : { ...m, tokens: result.tokens[m.index]! })) };
        if (result.analysis) merged.analysis = result.analysis;
        if (result.analysisError) merged.analysisError = result.analysisError;
        setSession(merged);
      }, failed);
    }, failed);
    return () => {
      current = false;
    };
  }, [updates]);
  useEffect(() => {
    if (!data.follow) return;
    const controller = new AbortController();
    data.follow(route.source, route.sessionId, () => setUpdates((n) => n + 1), controller.signal);
    return () => controller.abort();
  }, []);
  if (error !== undefined) return h("p", { class: "error" }, error);
  if (session === undefined) return h("p", { class: "muted" }, "loading the session…");
  const turns = session.analysis?.turns ?? [];
  const open = (turn: number) => (location.hash = routeHash({ ...route, turn }));
  return h(
    "section",
    { id: "session" },
    h("h1", null, session.sessionId, " ", h("span", { class: "muted small" }, session.source), session.live ? h("span", { class: "badge live" }, "live") : null),
    h(
      "p",
      { class: "facts", id: "session-facts" },
      `${session.messages.length} messages · ${session.events.length} memory events · ${turns.length} turns`,
      session.analysis ? ` · ${session.analysis.module} · ${session.analysis.model}` : "",
    ),
    session.analysisError ? h("p", { class: "note" }, `No window analysis: ${session.analysisError}`) : null,
    session.analysisPending && !session.analysis ? h("p", { class: "note", id: "analysis-pending" }, `Replaying the session's ${session.messages.filter((m) => m.role === "assistant").length} turns to explain each window…`) : null,
    turns.length > 0 ? h(SessionChartsView, { session, onPick: open }) : null,
    route.turn !== undefined ? h(TurnView, { session, turn: route.turn, route }) : null,
    h(TurnStrip, { session, route }),
    h(Timeline, { session }),
  );
}

function SessionChartsView({ session, onPick }: { session: InspectorSession; onPick: (turn: number) => void }) {
  const charts = useMemo(() => sessionCharts(session.analysis), [session]);
  const tokenSeries = useMemo(
    () => [
      { label: "history tokens", values: charts.historyTokens, color: "#8a8f98" },
      { label: "window tokens", values: charts.windowTokens, color: "#2f6fdf" },
      { label: "budget", values: charts.budget, color: "#d9822b", dash: [6, 4] },
    ],
    [charts],
  );
  const shareSeries = useMemo(
    () => [
      { label: "prefix kept %", values: charts.prefixKept, color: "#2a9d5c" },
      ...(charts.cachedShare ? [{ label: `cached share % (${charts.cacheSource})`, values: charts.cachedShare, color: "#8e44ad" }] : []),
    ],
    [charts],
  );
  return h(
    "div",
    { class: "charts" },
    h(Chart, { id: "chart-tokens", title: "Tokens per turn: the whole history, the window sent, the budget (click a turn to open it)", x: charts.turns, series: tokenSeries, unit: "tokens", onPick }),
    h(Chart, {
      id: "chart-prefix",
      title: charts.cachedShare ? "Prefix kept from the previous window, and cached share of the input, per turn" : "Prefix kept from the previous window, per turn (no usage known: no cached share)",
      x: charts.turns,
      series: shareSeries,
      unit: "%",
      yRange: [0, 100],
      onPick,
    }),
  );
}

function TurnStrip({ session, route }: { session: InspectorSession; route: Extract<Route, { view: "session" }> }) {
  const turns = session.analysis?.turns ?? [];
  if (turns.length === 0) return null;
  return h(
    "details",
    { class: "turns", id: "turns", open: route.turn === undefined },
    h("summary", null, `Turns (${turns.length}): the window before each assistant message`),
    h(
      "div",
      { class: "turn-links" },
      turns.map((t) =>
        h(
          "a",
          { key: t.turn, href: routeHash({ ...route, turn: t.turn }), class: `turn-link${t.turn === route.turn ? " current" : ""}`, title: `${t.windowTokens} of ${t.historyTokens} tokens sent` },
          String(t.turn),
        ),
      ),
    ),
  );
}

const DECISION_ORDER = ["kept", "truncated", "summarized", "recalled", "dropped"] as const;

function TurnView({ session, turn, route }: { session: InspectorSession; turn: number; route: Extract<Route, { view: "session" }> }) {
  const view = useMemo(() => turnWindow(session, turn), [session, turn]);
  const [only, setOnly] = useState<string>("all");
  // Opening a turn (a link, a click on a chart) brings its window into view.
  useEffect(() => document.getElementById("turn")?.scrollIntoView({ block: "start" }), [turn]);
  if (view === undefined) return h("p", { class: "error" }, `no turn ${turn} in this session`);
  const t = view.turn;
  const last = session.analysis!.turns.length;
  const rows = only === "all" ? view.rows : view.rows.filter((r) => r.decision === only);
  return h(
    "section",
    { id: "turn", class: "turn" },
    h(
      "h2",
      null,
      `Turn ${t.turn} of ${last}`,
      " ",
      t.turn > 1 ? h("a", { href: routeHash({ ...route, turn: t.turn - 1 }), class: "nav" }, "← previous") : null,
      " ",
      t.turn < last ? h("a", { href: routeHash({ ...route, turn: t.turn + 1 }), class: "nav" }, "next →") : null,
      " ",
      h("a", { href: routeHash({ view: "session", source: route.source, sessionId: route.sessionId }), class: "nav" }, "close"),
    ),
    h("p", { class: "facts" }, `The window the model received before message #${t.messageIndex + 1}: ${t.windowMessages} messages, ${t.windowTokens.toLocaleString("en")} tokens of a ${t.budget.toLocaleString("en")}-token budget; the whole history was ${t.historyMessages} messages, ${t.historyTokens.toLocaleString("en")} tokens. Prefix kept from the previous window: ${(t.prefixKept * 100).toFixed(1)} %.`),
    h(
      "div",
      { class: "token-bar", id: "token-bar", role: "img", "aria-label": view.bar.map((s) => `${s.label} ${s.tokens}`).join(", ") },
      view.bar.filter((s) => s.tokens > 0).map((s) => h("div", { class: `segment ${s.key}`, style: { width: `${Math.max(0.4, s.share * 100)}%` }, title: `${s.label}: ${s.tokens.toLocaleString("en")} tokens` })),
    ),
    h("ul", { class: "legend" }, view.bar.map((s) => h("li", { class: `legend-${s.key}` }, h("span", { class: `swatch ${s.key}` }), `${s.label}: ${s.tokens.toLocaleString("en")}`))),
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
      h("tbody", null, rows.map((row) => h(WindowRowView, { row, key: row.index }))),
    ),
  );
}

function WindowRowView({ row }: { row: WindowRow }) {
  return h(
    "tr",
    { class: `decision-${row.decision.replace(" ", "-")}`, "data-index": row.index },
    h("td", { class: "num" }, String(row.index + 1)),
    h("td", null, h("span", { class: `role ${row.role}` }, row.role)),
    h("td", null, h("span", { class: `badge ${row.decision.replace(" ", "-")}` }, row.decision)),
    h("td", null, row.strategy),
    h("td", { class: "reason" }, row.reason),
    h("td", { class: "num" }, row.tokens === undefined ? "" : String(row.tokens)),
    h("td", { class: "preview" }, row.preview),
  );
}

function Timeline({ session }: { session: InspectorSession }) {
  const entries = useMemo(() => timeline(session), [session]);
  return h("section", { id: "timeline" }, h("h2", null, "Timeline: messages and memory events"), h("ol", { class: "timeline" }, entries.map((entry) => h(TimelineItem, { entry, session, key: entry.key }))));
}

function TimelineItem({ entry, session }: { entry: TimelineEntry; session: InspectorSession }) {
  if (entry.kind === "event") {
    return h("li", { class: "entry event" }, h("div", { class: "head" }, h("span", { class: "role event" }, "memory event"), h("span", { class: "event-type" }, entry.eventType), h("span", { class: "muted" }, timeLabel(entry.time))), h(Folded, { text: entry.body }));
  }
  const m = entry.message;
  return h(
    "li",
    { class: `entry message ${m.role}${m.note ? " note" : ""}${m.ephemeral ? " ephemeral" : ""}`, id: `message-${m.index + 1}` },
    h(
      "div",
      { class: "head" },
      h("span", { class: "muted" }, `#${m.index + 1}`),
      h("span", { class: `role ${m.role}` }, m.role),
      m.name ? h("span", { class: "name" }, m.name) : null,
      entry.marks.map((mark) => h("span", { class: "badge mark" }, mark)),
      m.tokens !== undefined ? h("span", { class: "muted" }, `${m.tokens} tokens`) : null,
      h("span", { class: "muted" }, timeLabel(m.timestamp)),
      entry.turn !== undefined ? h("a", { class: "nav", href: routeHash({ view: "session", source: session.source, sessionId: session.sessionId, turn: entry.turn }) }, `window of turn ${entry.turn} →`) : null,
    ),
    entry.answers.map((a) => h("div", { class: "answers" }, "result of ", h("code", null, a.call ? `${a.call.name}` : "an unknown call"), " ", h("span", { class: "muted" }, a.id))),
    m.text !== "" ? h(Folded, { text: entry.body }) : null,
    m.toolCalls.map((call) => h("div", { class: "tool-call" }, h("span", { class: "badge call" }, "tool call"), h("code", null, call.name), " ", h("span", { class: "muted" }, call.id), h(Folded, { text: foldText(call.arguments) }))),
  );
}

function Folded({ text }: { text: FoldedText }) {
  const [open, setOpen] = useState(false);
  return h(
    Fragment,
    null,
    h("pre", { class: "text" }, open || !text.folded ? text.full : text.preview),
    text.folded ? h("button", { type: "button", class: "fold", onClick: () => setOpen(!open) }, open ? "fold" : `show all (${text.hiddenChars.toLocaleString("en")} more characters)`) : null,
  );
}
