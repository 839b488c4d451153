import { DEFAULT_CONFIG_FILE, type Session } from "@amplifier-ts/core";
import { createSession } from "../../session/index.js";
import { isAmplifierError, memoryOf, type AmplifierError } from "@amplifier-ts/contracts";
import { parseStoreUrl } from "@amplifier-ts/stores";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { historyStoreSource, type InspectorSource } from "@amplifier-ts/inspector";
import { startServer } from "@amplifier-ts/server";
import { createHistoryStore } from "../../modules/stores.js";
import type { analyzeSession } from "../../replay/session-analysis.js";
import { AnalysisThreads } from "../../replay/session-analysis-threads.js";
import { CliUsageError, type CliCommand, type CliInvocation } from "../command.js";

const DEFAULT_PORT = 8000;
const DEFAULT_HOST = "127.0.0.1";
const TOKEN_VARIABLE = "AMPLIFIER_SERVER_TOKEN";
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * A local memory lives in the process that mounts it: the server's own is a fresh, empty one, and
 * an agent running in another process records into its own. Said at start, with the way out.
 */
const LOCAL_MEMORY_NOTE = [
  "  note: a local memory lives inside this server's process: it starts empty and holds only what this",
  "  process records; an agent running elsewhere writes into its own. To serve an agent's memory, give",
  "  both the same shared one: MEMORY_TYPE=postgres with AMPLIFIER_PG_URL=postgres://…, or",
  "  MEMORY_TYPE=redis with AMPLIFIER_REDIS_URL=redis://… (or \"memory\" in the config of each).",
  "",
].join("\n");

/**
 * `amplifier-ts serve`: a session from the config (with its memory), and the HTTP endpoints of
 * amplifier-ts/server over that memory — and the Inspector at `/` over the sessions of the store
 * `--sessions` names (each session analyzed by replaying it, analyzeSession, in a worker thread:
 * AnalysisThreads, so the server's event loop never waits for a replay) — until SIGINT or SIGTERM.
 *
 * | step | on failure |
 * |---|---|
 * | options (port 0-65535, a non-empty token) | usage error, exit 2 |
 * | createSession(config) — the config's "memory", else the MEMORY_* variables | the error with its code, exit 1 |
 * | --sessions names a store that cannot be opened | the error with its code, exit 1 |
 * | no memory mounted and no --sessions | exit 1: the endpoints would only answer 503 |
 * | startServer (the port is taken …) | the session is closed, exit 1 |
 * | SIGINT / SIGTERM | the server stops taking requests, the session closes (its memory's connections), exit 0 |
 */
export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Serve the session's memory over HTTP (GET /memory/events, /memory/sessions) and the Inspector at /",
  description: [
    "Creates the session a config describes — its memory from the config's \"memory\" entry, else",
    "from MEMORY_ENABLED / MEMORY_TYPE / MEMORY_MAX_SESSIONS … — and serves it until SIGINT or SIGTERM:",
    "",
    "  GET /memory/events?limit=&session_id=   { agent, events, total }, newest last (limit ≤ 1000)",
    "  GET /memory/sessions                    { agent, sessions, total }",
    "  GET /openapi.json                       the OpenAPI document",
    "  GET /                                   the Inspector: sessions, timelines, windows, charts",
    "",
    "The Inspector lists the sessions of the store --sessions names (a JSONL folder, postgres://…,",
    "redis://…) with the memory's events; each session's windows are replayed through the embedded",
    "context-persistent (--model, --budget; --cache simulates the prompt cache). With a token, open",
    "<url>/?token=<token> once: the server sets a session cookie (HttpOnly, SameSite=Strict) and",
    "redirects to <url>/ without the token; without the cookie or the token the page answers 401.",
    "",
    `Binds ${DEFAULT_HOST} unless --host says otherwise, and there answers only requests for a loopback`,
    `host name (127.x, localhost, [::1]) on every route; with --token (or ${TOKEN_VARIABLE}) every`,
    "route but /openapi.json wants `Authorization: Bearer <token>` (or that cookie). Prints the URL when it listens.",
    "",
    "Examples:",
    "  MEMORY_TYPE=redis AMPLIFIER_REDIS_URL=redis://127.0.0.1:6379 amplifier-ts serve   # the memory an agent shares",
    "  MEMORY_TYPE=local amplifier-ts serve --port 8000    # this process's own memory: empty until it records",
    "  amplifier-ts serve --sessions examples/ --port 8000      # the Inspector on the sample session",
    "  amplifier-ts serve --config amplifier.config.json --agent-name my-agent --port 0",
    `  ${TOKEN_VARIABLE}=secret amplifier-ts serve --host 0.0.0.0`,
  ].join("\n"),
  arguments: [],
  options: {
    config: { type: "string", placeholder: "file", description: `Config file (default: ./${DEFAULT_CONFIG_FILE} if present, else the default session)` },
    port: { type: "string", placeholder: "port", description: `Port to listen on; 0 picks a free one (default ${DEFAULT_PORT})` },
    host: { type: "string", placeholder: "host", description: `Address to bind (default ${DEFAULT_HOST}: this machine only)` },
    "agent-name": { type: "string", placeholder: "name", description: "The `agent` field of every answer (default \"agent\")" },
    token: { type: "string", placeholder: "token", description: `Bearer token the endpoints want (default: ${TOKEN_VARIABLE}, else none)` },
    sessions: { type: "string", placeholder: "url", description: "Store whose sessions the Inspector shows: a folder of JSONL sessions, jsonl:<folder>, postgres://…, redis://…" },
    model: { type: "string", placeholder: "name", description: "Inspector: model to count tokens with and size the budget from (default gpt-4o)" },
    budget: { type: "string", placeholder: "tokens", description: "Inspector: fixed token budget per request (default: the model's window − max output − margin)" },
    cache: { type: "boolean", description: "Inspector: simulate the provider's prompt cache (cached share per turn when the sessions carry no bills)" },
  },
  run: serve,
};

async function serve({ values, io }: CliInvocation): Promise<number> {
  const port = parsePort(values.port);
  const host = stringOption(values.host, "--host") ?? DEFAULT_HOST;
  const agentName = stringOption(values["agent-name"], "--agent-name") ?? "agent";
  const token = stringOption(values.token, "--token") ?? (process.env[TOKEN_VARIABLE] || undefined);
  const config = stringOption(values.config, "--config");
  const sessionsUrl = stringOption(values.sessions, "--sessions");
  const model = stringOption(values.model, "--model");
  const budget = parseBudget(values.budget);

  let store: HistoryStore | undefined;
  if (sessionsUrl !== undefined) {
    try {
      // The inspector only reads: a JSONL session it opens gets no sidecar index written beside it.
      const config = parseStoreUrl(sessionsUrl, io.cwd);
      store = await createHistoryStore(config.type === "jsonl" ? { ...config, readOnly: true } : config);
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      return failed(io.stderr, error);
    }
  }
  let session: Session;
  try {
    session = await createSession(config, { cwd: io.cwd });
  } catch (error) {
    await store?.close();
    if (!isAmplifierError(error)) throw error;
    return failed(io.stderr, error);
  }
  // Analyses run in worker threads (one less than the CPUs, 1 to 2; more wait their turn): the
  // replay, the tokenizer and their garbage never hold the thread that answers requests.
  const threads = new AnalysisThreads();
  const closeAll = async () => {
    await threads.close();
    await session.close();
    await store?.close();
  };
  const memory = memoryOf(session.coordinator);
  if (memory === undefined && store === undefined) {
    await closeAll();
    io.stderr.write(`error: no memory is mounted and no --sessions store given: add "memory": { "module": "memory-local" } to the config, set MEMORY_TYPE (local, postgres, redis), or name a store with --sessions\n`);
    return 1;
  }
  const sources: InspectorSource[] = store === undefined ? [] : [historyStoreSource(store)];
  const inspector = {
    sources,
    // The page's simulation (budget, model) wins over the command line's for that analysis.
    analyze: async (messages: Parameters<typeof analyzeSession>[0], sessionId: string, simulation?: { budget?: number; model?: string }, control?: { onProgress(done: number, total: number): void; signal: AbortSignal }) =>
      threads.analyze(messages, { name: sessionId, ...(model === undefined ? {} : { model }), ...(budget === undefined ? {} : { budget }), ...(simulation?.model === undefined ? {} : { model: simulation.model }), ...(simulation?.budget === undefined ? {} : { budget: simulation.budget }), ...(values.cache === true ? { cache: true } : {}), ...(control === undefined ? {} : { onProgress: control.onProgress, signal: control.signal }) }),
  };

  let server;
  try {
    server = await startServer({ coordinator: session.coordinator, port, host, agentName, inspector, ...(token === undefined ? {} : { token }) });
  } catch (error) {
    await closeAll();
    if (isAmplifierError(error)) return failed(io.stderr, error);
    io.stderr.write(`error: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return 1;
  }
  if (token === undefined && !isLoopback(host)) io.stderr.write(`warning: serving ${host} without a token: anyone who reaches it reads the memory (--token or ${TOKEN_VARIABLE})\n`);
  io.stdout.write(memory === undefined ? `serving agent "${agentName}" (no memory mounted) at ${server.url}\n` : `serving the ${memory.kind} memory of agent "${agentName}" at ${server.url}\n`);
  io.stdout.write(`  Inspector: ${server.url}/${token === undefined ? "" : "?token=<token>"}${store === undefined ? "" : ` (sessions of ${store.kind} ${sessionsUrl})`}\n`);
  io.stdout.write(`  ${server.url}/memory/events\n  ${server.url}/memory/sessions\n  ${server.url}/openapi.json\n`);
  if (memory?.kind === "local") io.stdout.write(LOCAL_MEMORY_NOTE);

  const signal = await untilStopSignal();
  io.stderr.write(`${signal}: stopping\n`);
  await server.close();
  await closeAll();
  return 0;
}

// ---- private helpers ----

/** Resolves with the first SIGINT / SIGTERM; its listeners are removed, so a second signal ends the process as usual. */
function untilStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      for (const name of STOP_SIGNALS) process.off(name, stop);
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.once(name, stop);
  });
}

function parsePort(value: string | boolean | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port > 65_535) throw new CliUsageError(`--port expects a whole number 0-65535, got "${String(value)}"`);
  return port;
}

function parseBudget(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new CliUsageError(`--budget expects a whole number of tokens greater than 0, got "${String(value)}"`);
  return n;
}

function stringOption(value: string | boolean | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0) throw new CliUsageError(`${flag} needs a value`);
  return value;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

function failed(stderr: { write(chunk: string): unknown }, error: AmplifierError): number {
  stderr.write(`error: ${error.message.startsWith(`[${error.code}]`) ? error.message : `[${error.code}] ${error.message}`}${error.details?.hint ? ` (hint: ${String(error.details.hint)})` : ""}\n`);
  return 1;
}
