/**
 * The Inspector's data, independent of HTTP: the session list over every source (history stores,
 * live in-process sessions) and the memory, one session with its analysis, and change
 * notifications for the live view. The server's routes (@amplifier-ts/server) answer with it.
 *
 * | call | does |
 * |---|---|
 * | `listSessions()` | every session of every source, with message and memory-event counts and last activity; sessions only the memory knows are listed under source "memory" |
 * | `session(source, id, { analysis })` | messages (as MessageViews), memory events and — unless `analysis: false` — the analysis (cached until the session changes); INSPECTOR/UNKNOWN_SESSION when no source holds it |
 * | `analysis(source, id)` | the analysis alone, with each message's token count (the page fetches it after the messages) |
 * | `follow(source, id, onChange)` | calls `onChange(messageCount)` when the session's message count or last id changes (the source's `watch`, else polling every `pollMs`); returns the stop function |
 */
import { MemoryEvent, type HistoryStore, type Memory, type MemoryEventJson, type Message, type WindowRecord } from "@amplifier-ts/contracts";
import type { InspectorSession, InspectorSessionSummary, SessionAnalysis, SessionAnalysisResult, SimulationOptions } from "./inspector-data.js";
import { inspectorErrors } from "./inspector-errors.js";
import { messageViews } from "./view-model/message-views.js";
import { sessionRecords, storeWindowRecords, type WindowRecordSource } from "./session-records.js";

/** Where the Inspector reads sessions from. */
export interface InspectorSource {
  /** Shown in the list and used in links: [A-Za-z0-9._-], unique among the sources. */
  readonly name: string;
  /** Sessions of this source are running in this process (marked live). */
  readonly live?: boolean;
  listSessions(): Promise<Array<{ sessionId: string; count: number; updatedAt?: string }>>;
  /** The session's messages, or undefined when the source does not hold it. */
  read(sessionId: string): Promise<Message[] | undefined>;
  /** Calls `listener` when the session changes; returns the unsubscribe. Without it the Inspector polls. */
  watch?(sessionId: string, listener: () => void): () => void;
  /** The context manager's records of what each request sent (contracts/window-record.ts); absent or undefined = none kept. */
  windows?: WindowRecordSource;
}

/** Turns a session's messages into its analysis — a simulation under `options` (the page's budget and model; absent = the server's defaults) — and each message's own token count. */
export type SessionAnalyzer = (messages: Message[], sessionId: string, options?: SimulationOptions) => Promise<{ analysis: SessionAnalysis; tokens?: number[] }>;

export interface InspectorOptions {
  sources: InspectorSource[];
  /** The memory whose events join the timeline (a function: the coordinator's memory may come later). */
  memory?: () => Memory | undefined;
  analyze?: SessionAnalyzer;
  /** How often follow() looks at a source without watch(). Default 1000 ms. */
  pollMs?: number;
}

export interface Inspector {
  listSessions(): Promise<InspectorSessionSummary[]>;
  session(source: string, sessionId: string, options?: { analysis?: boolean }): Promise<InspectorSession>;
  /** The simulation: the session replayed under `simulation`'s budget and model (absent = the analyzer's defaults). */
  analysis(source: string, sessionId: string, simulation?: SimulationOptions): Promise<SessionAnalysisResult>;
  follow(source: string, sessionId: string, onChange: (messages: number) => void): () => void;
}

/** A history store as a source (JSONL folder, PostgreSQL, Redis …): read-only, never opened for writing. */
export function historyStoreSource(store: HistoryStore, name: string = store.kind): InspectorSource {
  return {
    name,
    ...storeWindowRecords(store),
    listSessions: async () => (await store.listSessions()).map((s) => (s.updatedAt === undefined ? { sessionId: s.sessionId, count: s.count } : { sessionId: s.sessionId, count: s.count, updatedAt: s.updatedAt })),
    read: async (sessionId) => {
      const known = (await store.listSessions()).some((s) => s.sessionId === sessionId);
      return known ? store.read(sessionId) : undefined;
    },
  };
}

/** Something that holds a running session's messages: a ContextManager, or a session's `context`. */
export interface LiveContext {
  getMessages(): Promise<Message[]>;
  /** What each request sent (the built-in managers' windowRecords()). */
  windowRecords?(): readonly WindowRecord[];
}

/** In-process sessions as a source: add() a running session's context, remove it when it ends. */
export interface LiveSessions extends InspectorSource {
  add(sessionId: string, context: LiveContext): () => void;
}

export function liveSessions(name = "live"): LiveSessions {
  const contexts = new Map<string, LiveContext>();
  const touched = new Map<string, string>();
  return {
    name,
    live: true,
    add(sessionId, context) {
      contexts.set(sessionId, context);
      touched.set(sessionId, new Date().toISOString());
      return () => {
        contexts.delete(sessionId);
        touched.delete(sessionId);
      };
    },
    async listSessions() {
      const out = [];
      for (const [sessionId, context] of contexts) {
        const messages = await context.getMessages();
        const last = messages.at(-1)?.metadata?.timestamp;
        out.push({ sessionId, count: messages.length, updatedAt: typeof last === "string" ? last : touched.get(sessionId)! });
      }
      return out;
    },
    read: async (sessionId) => contexts.get(sessionId)?.getMessages(),
    windows: async (sessionId) => contexts.get(sessionId)?.windowRecords?.(),
  };
}

export function createInspector(options: InspectorOptions): Inspector {
  const pollMs = options.pollMs ?? 1_000;
  const analyses = new Map<string, { signature: string; result: SessionAnalysisResult }>();
  const sourceNamed = (name: string) => options.sources.find((s) => s.name === name);

  const eventsOf = async (sessionId: string): Promise<MemoryEventJson[]> => {
    const memory = options.memory?.();
    if (memory === undefined) return [];
    return (await memory.getSessionEvents(sessionId)).map((e) => MemoryEvent.toJSON(e));
  };

  /** The analysis of these messages, computed once per session and content (count and last id). */
  const analyzed = async (source: string, sessionId: string, messages: Message[], simulation: SimulationOptions = {}): Promise<SessionAnalysisResult> => {
    if (options.analyze === undefined) return { analysisError: NO_ANALYZER };
    if (messages.length === 0) return {};
    const key = `${source}/${sessionId}/${simulation.budget ?? ""}/${simulation.model ?? ""}`;
    const signature = `${messages.length}:${messages.at(-1)?.metadata?.id ?? ""}`;
    let entry = analyses.get(key);
    if (entry?.signature !== signature) {
      let result: SessionAnalysisResult;
      try {
        const done = await options.analyze(messages, sessionId, simulation);
        result = done.tokens === undefined ? { analysis: done.analysis } : { analysis: done.analysis, tokens: done.tokens };
      } catch (error) {
        result = { analysisError: (error as Error).message };
      }
      entry = { signature, result };
      analyses.set(key, entry);
    }
    return entry.result;
  };

  const read = async (source: string, sessionId: string): Promise<Message[]> => {
    if (source === "memory") return [];
    const found = await sourceNamed(source)?.read(sessionId);
    if (found === undefined) throw inspectorErrors.create("UNKNOWN_SESSION", `${source}/${sessionId}`, { module: "inspector", given: { source, sessionId }, expected: `a session of ${options.sources.map((s) => s.name).join(", ") || "no source"}` });
    return found;
  };

  return {
    async listSessions() {
      const memory = options.memory?.();
      const memorySessions = new Set(memory ? await memory.listSessions() : []);
      const summaries: InspectorSessionSummary[] = [];
      const seen = new Set<string>();
      for (const source of options.sources) {
        for (const s of await source.listSessions()) {
          const events = memorySessions.has(s.sessionId) ? await eventsOf(s.sessionId) : [];
          seen.add(s.sessionId);
          const summary: InspectorSessionSummary = { source: source.name, sessionId: s.sessionId, messages: s.count, events: events.length, live: source.live === true };
          const last = latest(s.updatedAt, events.at(-1)?.timestamp);
          if (last !== undefined) summary.lastActivity = last;
          summaries.push(summary);
        }
      }
      for (const sessionId of memorySessions) {
        if (seen.has(sessionId)) continue;
        const events = await eventsOf(sessionId);
        const summary: InspectorSessionSummary = { source: "memory", sessionId, messages: 0, events: events.length, live: false };
        if (events.length > 0) summary.lastActivity = events.at(-1)!.timestamp;
        summaries.push(summary);
      }
      return summaries;
    },

    async session(source, sessionId, sessionOptions = {}) {
      const messages = await read(source, sessionId);
      const events = await eventsOf(sessionId);
      if (source === "memory" && events.length === 0) throw inspectorErrors.create("UNKNOWN_SESSION", `memory/${sessionId}`, { module: "inspector", given: { source, sessionId } });
      const view: InspectorSession = { source, sessionId, live: sourceNamed(source)?.live === true, messages: [], events, ...(await sessionRecords(sourceNamed(source), sessionId, messages)) };
      if (sessionOptions.analysis === false) {
        view.messages = messageViews(messages);
        if (options.analyze !== undefined && messages.length > 0) view.analysisPending = true;
        else if (options.analyze === undefined) view.analysisError = NO_ANALYZER;
        return view;
      }
      const result = await analyzed(source, sessionId, messages);
      if (result.analysis !== undefined) view.analysis = result.analysis;
      if (result.analysisError !== undefined) view.analysisError = result.analysisError;
      view.messages = messageViews(messages, result.tokens);
      return view;
    },

    async analysis(source, sessionId, simulation) {
      return analyzed(source, sessionId, await read(source, sessionId), simulation);
    },

    follow(source, sessionId, onChange) {
      let last = "";
      let stopped = false;
      const look = async () => {
        if (stopped) return;
        try {
          const messages = await read(source, sessionId);
          const signature = `${messages.length}:${messages.at(-1)?.metadata?.id ?? ""}`;
          if (last !== "" && signature !== last && !stopped) onChange(messages.length);
          last = signature;
        } catch {
          // A session that went away (or a store that is down) is looked at again next time.
        }
      };
      void look();
      const watched = sourceNamed(source)?.watch?.(sessionId, () => void look());
      const timer = watched === undefined ? setInterval(() => void look(), pollMs) : undefined;
      timer?.unref?.();
      return () => {
        stopped = true;
        if (timer !== undefined) clearInterval(timer);
        watched?.();
      };
    },
  };
}

const NO_ANALYZER = "this server was started without an analyzer";

function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
