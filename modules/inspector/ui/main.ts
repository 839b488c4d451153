/**
 * The Inspector page's entry (bundled by build-ui.mjs into dist/assets/inspector.js). Two modes:
 * served (data from the server's /inspector/api routes; a token travels as the server's session
 * cookie, never through this code) and report
 * (`replay --html`: the session is embedded as JSON in `<script type="application/json">`, read
 * with JSON.parse — never evaluated).
 */
import { h, render } from "preact";
import type { InspectorReport, InspectorSession, InspectorSessionSummary, SessionAnalysisResult } from "../inspector-data.js";
import { followEvents, getJson } from "./api.js";
import { App, type PageData } from "./app.js";

const root = document.getElementById("app")!;
const ANALYSIS_POLL_MS = 500;
const embedded = document.getElementById("inspector-report");

function served(): PageData {
  const query = (source: string, sessionId: string) => `source=${encodeURIComponent(source)}&id=${encodeURIComponent(sessionId)}`;
  return {
    list: async () => (await getJson<{ sessions: InspectorSessionSummary[] }>("/inspector/api/sessions")).sessions,
    // Messages first (fast), the analysis after (a replay of every turn, once per content).
    session: (source, sessionId) => getJson<InspectorSession>(`/inspector/api/session?${query(source, sessionId)}&analysis=false`),
    // Asked without waiting: while the replay runs the server answers its progress, shown until the result comes.
    analysis: async (source, sessionId, simulation = {}, onProgress) => {
      const path = `/inspector/api/analysis?${query(source, sessionId)}${simulation.budget === undefined ? "" : `&budget=${simulation.budget}`}${simulation.model === undefined ? "" : `&model=${encodeURIComponent(simulation.model)}`}&wait=false`;
      for (;;) {
        const result = await getJson<SessionAnalysisResult>(path);
        if (result.analysisProgress === undefined) return result;
        onProgress?.(result.analysisProgress);
        await new Promise((resolve) => setTimeout(resolve, ANALYSIS_POLL_MS));
      }
    },
    follow: (source, sessionId, onChange, signal) => followEvents(`/inspector/api/live?${query(source, sessionId)}`, (name) => name === "changed" && onChange(), signal),
  };
}

function report(text: string): PageData {
  const data = JSON.parse(text) as InspectorReport;
  document.title = data.title;
  return {
    only: { source: data.session.source, sessionId: data.session.sessionId },
    session: async () => data.session,
  };
}

/** A data route answered 401: no session cookie, or one from before the server restarted. */
function askToken(): void {
  const note = h(
    "div",
    { class: "token-form", id: "token-needed" },
    h("p", null, "This server wants its token. Open the page as /?token=<token>: the server then keeps this browser signed in with a cookie and takes the token out of the address."),
    h("a", { href: "/" }, "sign in"),
  );
  render(note, root);
}

if (embedded !== null) {
  render(h(App, { data: report(embedded.textContent ?? "{}"), onNeedToken: askToken }), root);
} else {
  render(h(App, { data: served(), onNeedToken: askToken }), root);
}
