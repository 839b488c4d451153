import { Fragment, h } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AnalysisProgress, InspectorSession, InspectorSessionSummary, SessionAnalysisResult, SimulationOptions } from "../inspector-data.js";
import { foldText, type FoldedText } from "../view-model/fold-text.js";
import { sessionCharts } from "../view-model/session-charts.js";
import { spendRows } from "../view-model/spend-rows.js";
import { sessionRows, timeLabel } from "../view-model/session-list.js";
import { timeline, type TimelineEntry } from "../view-model/timeline.js";
import { Chart } from "./chart.js";
import { TurnView } from "./turn-view.js";

/** Where the page's data comes from: the server's routes, or the report's embedded session. */
export interface PageData {
  /** Undefined in a report (one session, no list). */
  list?: () => Promise<InspectorSessionSummary[]>;
  session(source: string, sessionId: string): Promise<InspectorSession>;
  /** The analysis (a simulation under `simulation`'s budget and model) of a session that came with `analysisPending`. */
  analysis?: (source: string, sessionId: string, simulation?: SimulationOptions, onProgress?: (progress: AnalysisProgress) => void) => Promise<SessionAnalysisResult>;
  /** Calls `onChange` when the session gained messages; stops when `signal` aborts. */
  follow?: (source: string, sessionId: string, onChange: () => void, signal: AbortSignal) => void;
  /** The report's session: the page opens it instead of a list. */
  only?: { source: string; sessionId: string };
}

export type Route =
  | { view: "list" }
  | { view: "session"; source: string; sessionId: string; turn?: number }
  /** A hash the page has no view for: said so, with the address as given and why. */
  | { view: "not-found"; hash: string; reason: string };

/**
 * The page's address, from its hash (a link, the history, a typed address — anything):
 *
 * | hash | view |
 * |---|---|
 * | empty, `#`, `#/` | the session list |
 * | `#/s/<source>/<id>` | the session (source and id %-encoded, as routeHash writes them) |
 * | `#/s/<source>/<id>/t/<n>` | the session at turn n (a whole number ≥ 1) |
 * | anything else — a malformed %-escape, an empty part, a bad turn, another path | not-found, with the reason |
 *
 * Never throws: a hash is outside input, and a throw here would leave the page blank.
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, "").replace(/\/$/, "");
  if (path === "") return { view: "list" };
  const notFound = (reason: string): Route => ({ view: "not-found", hash, reason });
  let parts: string[];
  try {
    parts = path.split("/").map((part) => decodeURIComponent(part));
  } catch {
    return notFound("the address holds a malformed %-escape");
  }
  if (parts[0] !== "s" || (parts.length !== 3 && parts.length !== 5)) return notFound("the page has no such address");
  const [, source, sessionId, turnMark, turnText] = parts as [string, string, string, string?, string?];
  if (source === "" || sessionId === "") return notFound("a session's address names its source and its id");
  if (parts.length === 3) return { view: "session", source, sessionId };
  const turn = turnMark === "t" && /^[1-9][0-9]*$/.test(turnText!) ? Number(turnText) : Number.NaN;
  if (!Number.isSafeInteger(turn)) return notFound(`"${turnMark}/${turnText}" is not a turn (t/<a whole number ≥ 1>)`);
  return { view: "session", source, sessionId, turn };
}

export function routeHash(route: Route): string {
  if (route.view === "not-found") return route.hash;
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
    shown.view === "list"
      ? h(SessionList, { data, onNeedToken })
      : shown.view === "not-found"
        ? h(NotFound, { route: shown })
        : h(SessionPage, { data, route: shown, onNeedToken, key: `${shown.source}/${shown.sessionId}` }),
  );
}

function NotFound({ route }: { route: Extract<Route, { view: "not-found" }> }) {
  return h(
    "section",
    { id: "not-found" },
    h("h1", null, "Not found"),
    h("p", null, "There is no page at ", h("code", null, route.hash), ": ", route.reason, "."),
    h("p", null, h("a", { href: "#/" }, "← the sessions")),
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
  const [simulation, setSimulation] = useState<SimulationOptions>({});
  const [progress, setProgress] = useState<AnalysisProgress | undefined>();
  const recordLooks = useRef({ messages: -1, looks: 0 });
  useEffect(() => {
    let current = true;
    let again: ReturnType<typeof setTimeout> | undefined;
    const failed = (e: Error & { status?: number }) => (e.status === 401 ? onNeedToken(e.message) : setError(e.message));
    data.session(route.source, route.sessionId).then((loaded) => {
      if (!current) return;
      // A live update keeps the analysis on screen until the new one arrives.
      setSession((shown) => (loaded.analysisPending && shown?.analysis ? { ...loaded, analysis: shown.analysis } : loaded));
      // A session that keeps records writes them just after each window, off the agent's path: when
      // the newest turn's record is not there yet, look again shortly (a few times per content) —
      // the live stream only tells about new messages.
      const looks = recordLooks.current;
      if (looks.messages !== loaded.messages.length) recordLooks.current = { messages: loaded.messages.length, looks: 0 };
      if (data.follow && loaded.recorded !== undefined && (loaded.recorded.at(-1)?.turn ?? 0) < loaded.messages.filter((m) => m.role === "assistant").length && recordLooks.current.looks < 3) {
        recordLooks.current.looks++;
        again = setTimeout(() => setUpdates((n) => n + 1), 1_000);
      }
      if (!loaded.analysisPending || !data.analysis) return;
      data.analysis(route.source, route.sessionId, simulation, (now) => current && setProgress(now)).then((result) => {
        if (!current) return;
        const merged: InspectorSession = { ...loaded, analysisPending: false, messages: loaded.messages.map((m) => (result.tokens?.[m.index] === undefined ? m : { ...m, tokens: result.tokens[m.index]! })) };
        if (result.analysis) merged.analysis = result.analysis;
        if (result.analysisError) merged.analysisError = result.analysisError;
        setSession(merged);
      }, failed);
    }, failed);
    return () => {
      current = false;
      if (again !== undefined) clearTimeout(again);
    };
  }, [updates, simulation]);
  useEffect(() => {
    if (!data.follow) return;
    const controller = new AbortController();
    data.follow(route.source, route.sessionId, () => setUpdates((n) => n + 1), controller.signal);
    return () => controller.abort();
  }, []);
  if (error !== undefined) return h("p", { class: "error" }, error);
  if (session === undefined) return h("p", { class: "muted" }, "loading the session…");
  const turns = turnNumbers(session);
  const recorded = session.recorded?.length ?? 0;
  const open = (turn: number) => (location.hash = routeHash({ ...route, turn }));
  const simulate = (options: SimulationOptions) => {
    setSession((shown) => (shown === undefined ? shown : { ...shown, analysisPending: true }));
    setSimulation(options);
  };
  return h(
    "section",
    { id: "session" },
    h("h1", null, session.sessionId, " ", h("span", { class: "muted small" }, session.source), session.live ? h("span", { class: "badge live" }, "live") : null),
    h(
      "p",
      { class: "facts", id: "session-facts" },
      // A turn is a model call: one per assistant message, known before any record or replay.
      `${session.messages.length} messages · ${session.events.length} memory events · ${session.messages.filter((m) => m.role === "assistant").length} turns`,
      recorded > 0 ? ` · ${recorded} recorded as sent (${session.recorded!.at(-1)!.model}, budget ${session.recorded!.at(-1)!.budget.toLocaleString("en")})` : " · no record of what was sent: windows are simulated",
      session.analysis ? ` · simulation: ${session.analysis.module} · ${session.analysis.model}${session.analysis.budget === undefined ? "" : ` · budget ${session.analysis.budget.toLocaleString("en")}`}` : "",
    ),
    session.analysisError ? h("p", { class: "note" }, `No window analysis: ${session.analysisError}`) : null,
    session.analysisPending && !session.analysis
      ? h("p", { class: "note", id: "analysis-pending" }, progress === undefined ? `Replaying the session's ${session.messages.filter((m) => m.role === "assistant").length} turns to explain each window…` : `Replaying the session to explain each window: turn ${progress.turnsDone} of ${progress.turns}…`)
      : null,
    session.analysis !== undefined || recorded > 0 ? h(SessionChartsView, { session, onPick: open }) : null,
    session.analysis?.spend ? h(SpendPanel, { spend: session.analysis.spend }) : null,
    route.turn !== undefined ? h(TurnView, { session, turn: route.turn, hrefOf: (turn?: number) => routeHash(turn === undefined ? { view: "session", source: route.source, sessionId: route.sessionId } : { ...route, turn }), simulation, onSimulate: data.analysis ? simulate : undefined }) : null,
    h(TurnStrip, { session, route }),
    h(Timeline, { session }),
  );
}

function SessionChartsView({ session, onPick }: { session: InspectorSession; onPick: (turn: number) => void }) {
  const charts = useMemo(() => sessionCharts(session.analysis, session.recorded), [session]);
  const tokenSeries = useMemo(
    () => [
      { label: "history tokens", values: charts.historyTokens, color: "#8a8f98" },
      { label: `window tokens (${charts.windowSource})`, values: charts.windowTokens, color: "#2f6fdf" },
      { label: `budget (${charts.windowSource})`, values: charts.budget, color: "#d9822b", dash: [6, 4] },
    ],
    [charts],
  );
  const shareSeries = useMemo(
    () => [
      { label: charts.windowSource === "sent" ? "prefix kept % (simulation)" : "prefix kept %", values: charts.prefixKept, color: "#2a9d5c" },
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

/** What the session spent (the simulation's replay): conversation, compaction and cache writes apart. */
function SpendPanel({ spend }: { spend: NonNullable<NonNullable<InspectorSession["analysis"]>["spend"]> }) {
  const rows = spendRows(spend);
  return h(
    "section",
    { id: "spend" },
    h("h2", null, "Spend (simulation, list prices)"),
    h(
      "table",
      { class: "spend" },
      h("thead", null, h("tr", null, h("th", null, "part"), h("th", null, "tokens"), h("th", null, "USD"), h("th", null, ""))),
      h(
        "tbody",
        null,
        rows.map((row) => h("tr", { key: row.part, class: `spend-${row.part.replace(" ", "-")}` }, h("td", null, row.part), h("td", { class: "num" }, row.tokens), h("td", { class: "num" }, row.usd), h("td", null, row.detail))),
      ),
    ),
  );
}

/** Turn numbers of the session: those recorded as sent and those the simulation has, ascending. */
function turnNumbers(session: InspectorSession): Array<{ turn: number; windowTokens: number; historyTokens: number }> {
  const byTurn = new Map<number, { turn: number; windowTokens: number; historyTokens: number }>();
  for (const t of session.analysis?.turns ?? []) byTurn.set(t.turn, t);
  for (const t of session.recorded ?? []) byTurn.set(t.turn, t);
  return [...byTurn.values()].sort((a, b) => a.turn - b.turn);
}

function TurnStrip({ session, route }: { session: InspectorSession; route: Extract<Route, { view: "session" }> }) {
  const turns = turnNumbers(session);
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
