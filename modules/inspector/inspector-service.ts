/**
 * The Inspector's data, independent of HTTP: the session list over every source (history stores,
 * live in-process sessions) and the memory, one session with its analysis, and change
 * notifications for the live view. The server's routes (@amplifier-ts/server) answer with it.
 *
 * | call | does |
 * |---|---|
 * | `listSessions()` | every session of every source, with message and memory-event counts and last activity (its newest message's or event's time); sessions only the memory knows are listed under source "memory" |
 * | `session(source, id, { analysis })` | messages (as MessageViews), memory events and — unless `analysis: false` — the analysis (cached until the session changes); INSPECTOR/UNKNOWN_SESSION when no source holds it |
 * | `analysis(source, id)` | the analysis alone, with each message's token count (the page fetches it after the messages) |
 * | `has(source, id)` | whether a source (or the memory) holds the session — its count, not its messages |
 * | `follow(source, id, onChange)` | calls `onChange(messageCount)` when the session's message count changes (the source's `watch`, else a look every `pollMs`); returns the stop function |
 * | `close()` | stops every follower and every analysis under way |
 *
 * Bounded by design: one analysis per session, simulation and content, shared by the
 * requests that ask for it while it runs and kept until the session changes (analysis-cache.ts);
 * one follower per session, shared by every stream on it, looking at its count only
 * (session-followers.ts).
 */
import { MemoryEvent, type HistoryStore, type Memory, type MemoryEventJson, type Message, type WindowRecord } from "@amplifier-ts/contracts";
import type { InspectorSession, InspectorSessionSummary, SessionAnalysis, SessionAnalysisResult, SimulationOptions } from "./inspector-data.js";
import { AnalysisCache, type AnalysisControl } from "./analysis-cache.js";
import { inspectorErrors } from "./inspector-errors.js";
import { SessionFollowers } from "./session-followers.js";
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
  /**
   * How many messages the session holds, or undefined when the source does not hold it: what a
   * follower looks at every tick, so it should cost little (no read of the session). Without it
   * the Inspector reads the session.
   */
  count?(sessionId: string): Promise<number | undefined>;
  /** Calls `listener` when the session changes; returns the unsubscribe. Without it the Inspector polls. */
  watch?(sessionId: string, listener: () => void): () => void;
  /** The context manager's records of what each request sent (contracts/window-record.ts); absent or undefined = none kept. */
  windows?: WindowRecordSource;
}

/** Turns a session's messages into its analysis — a simulation under `options` (the page's budget and model; absent = the server's defaults) — and each message's own token count. */
export type SessionAnalyzer = (messages: Message[], sessionId: string, options?: SimulationOptions, control?: AnalysisControl) => Promise<{ analysis: SessionAnalysis; tokens?: number[] }>;

export interface InspectorOptions {
  sources: InspectorSource[];
  /** The memory whose events join the timeline (a function: the coordinator's memory may come later). */
  memory?: () => Memory | undefined;
  analyze?: SessionAnalyzer;
  /** How often follow() looks at a source without watch(). Default 1000 ms. */
  pollMs?: number;
  /** Live streams (the server's /inspector/api/live) open at once: in all, and per client address. Default 64 and 8. */
  liveStreams?: { max?: number; perClient?: number };
}

export interface Inspector {
  listSessions(): Promise<InspectorSessionSummary[]>;
  session(source: string, sessionId: string, options?: { analysis?: boolean }): Promise<InspectorSession>;
  /** The simulation: the session replayed under `simulation`'s budget and model (absent = the analyzer's defaults). */
  analysis(source: string, sessionId: string, simulation?: SimulationOptions, options?: { wait?: boolean }): Promise<SessionAnalysisResult>;
  has(source: string, sessionId: string): Promise<boolean>;
  follow(source: string, sessionId: string, onChange: (messages: number) => void): () => void;
  close(): void;
}

/**
 * A history store as a source (JSONL folder, PostgreSQL, Redis …), only ever read: give it a store
 * opened to be read (a JSONL store with `readOnly: true` takes no lock and follows its writer).
 */
export function historyStoreSource(store: HistoryStore, name: string = store.kind): InspectorSource {
  // Held or not: its count; only an empty count asks the listing (an empty session, or none).
  const count = async (sessionId: string): Promise<number | undefined> => {
    const n = await store.count(sessionId);
    if (n > 0) return n;
    return (await store.listSessions()).some((s) => s.sessionId === sessionId) ? 0 : undefined;
  };
  return {
    name,
    ...storeWindowRecords(store),
    listSessions: async () => {
      // Activity is the newest message's time; the store's last change only when no message carries
      // one. One read of one message per session, LAST_MESSAGE_READS at a time.
      const listed = await store.listSessions();
      const out: Array<{ sessionId: string; count: number; updatedAt?: string }> = [];
      for (let i = 0; i < listed.length; i += LAST_MESSAGE_READS) {
        out.push(
          ...(await Promise.all(
            listed.slice(i, i + LAST_MESSAGE_READS).map(async (s) => {
              const last = s.count > 0 ? (await store.read(s.sessionId, { offset: s.count - 1, limit: 1 }))[0] : undefined;
              const updatedAt = typeof last?.metadata?.timestamp === "string" ? last.metadata.timestamp : s.updatedAt;
              return updatedAt === undefined ? { sessionId: s.sessionId, count: s.count } : { sessionId: s.sessionId, count: s.count, updatedAt };
            }),
          )),
        );
      }
      return out;
    },
    read: async (sessionId) => ((await count(sessionId)) === undefined ? undefined : store.read(sessionId)),
    count,
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
    count: async (sessionId) => (await contexts.get(sessionId)?.getMessages())?.length,
    windows: async (sessionId) => contexts.get(sessionId)?.windowRecords?.(),
  };
}

export function createInspector(options: InspectorOptions): Inspector {
  const followers = new SessionFollowers(options.pollMs ?? 1_000);
  const analyses = new AnalysisCache(async (messages, sessionId, simulation, control) => {
    try {
      const done = await options.analyze!(messages, sessionId, simulation, control);
      return done.tokens === undefined ? { analysis: done.analysis } : { analysis: done.analysis, tokens: done.tokens };
    } catch (error) {
      if (control.signal.aborted) return { analysisError: "the session changed while it was analysed: ask again for the new content" };
      return { analysisError: (error as Error).message };
    }
  });
  const sourceNamed = (name: string) => options.sources.find((s) => s.name === name);

  const eventsOf = async (sessionId: string): Promise<MemoryEventJson[]> => {
    const memory = options.memory?.();
    if (memory === undefined) return [];
    return (await memory.getSessionEvents(sessionId)).map((e) => MemoryEvent.toJSON(e));
  };

  /** The analysis of these messages: one run per session, simulation and content, shared and kept (analysis-cache.ts). */
  const analyzed = async (source: string, sessionId: string, messages: Message[], simulation: SimulationOptions = {}, wait = true): Promise<SessionAnalysisResult> => {
    if (options.analyze === undefined) return { analysisError: NO_ANALYZER };
    if (messages.length === 0) return {};
    return analyses.analysis(analysisKey(source, sessionId, simulation), sessionId, messages, simulation, wait);
  };

  /** The session's count, the cheapest way its source offers; undefined when the source does not hold it. */
  const countOf = async (source: InspectorSource, sessionId: string): Promise<number | undefined> => {
    if (source.count !== undefined) return source.count(sessionId);
    return (await source.read(sessionId))?.length;
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

    async analysis(source, sessionId, simulation, analysisOptions = {}) {
      const wait = analysisOptions.wait !== false;
      const found = sourceNamed(source);
      if (!wait && found !== undefined && options.analyze !== undefined) {
        // A page polling a run under way: its count tells whether the run is still of this content.
        const count = await countOf(found, sessionId);
        const running = count === undefined ? undefined : analyses.progressOf(analysisKey(source, sessionId, simulation), count);
        if (running !== undefined) return running;
      }
      return analyzed(source, sessionId, await read(source, sessionId), simulation, wait);
    },

    async has(source, sessionId) {
      if (source === "memory") return (await eventsOf(sessionId)).length > 0;
      const found = sourceNamed(source);
      return found !== undefined && (await countOf(found, sessionId)) !== undefined;
    },

    follow(source, sessionId, onChange) {
      const found = sourceNamed(source);
      if (found === undefined) return () => undefined;
      const watch = found.watch === undefined ? undefined : (listener: () => void) => found.watch!(sessionId, listener);
      return followers.follow(`${source}/${sessionId}`, () => countOf(found, sessionId), watch, onChange);
    },

    close() {
      followers.stopAll();
      analyses.clear();
    },
  };
}

const NO_ANALYZER = "this server was started without an analyzer";
/** Sessions whose newest message a listing reads at once (a store's connections, a folder's files). */
const LAST_MESSAGE_READS = 16;

/** What one analysis is of: the session and the simulation's budget and model. */
function analysisKey(source: string, sessionId: string, simulation: SimulationOptions = {}): string {
  return `${source}/${sessionId}/${simulation.budget ?? ""}/${simulation.model ?? ""}`;
}

function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
