import { createSession, DEFAULT_CONFIG_FILE, type Session } from "@amplifier-ts/core";
import { isAmplifierError, memoryOf, type AmplifierError } from "@amplifier-ts/contracts";
import { startServer } from "@amplifier-ts/server";
import { CliUsageError, type CliCommand, type CliInvocation } from "../command.js";

const DEFAULT_PORT = 8000;
const DEFAULT_HOST = "127.0.0.1";
const TOKEN_VARIABLE = "AMPLIFIER_SERVER_TOKEN";
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * `amplifier-ts serve`: a session from the config (with its memory), and the HTTP endpoints of
 * amplifier-ts/server over that memory, until SIGINT or SIGTERM.
 *
 * | step | on failure |
 * |---|---|
 * | options (port 0-65535, a non-empty token) | usage error, exit 2 |
 * | createSession(config) — the config's "memory", else the MEMORY_* variables | the error with its code, exit 1 |
 * | no memory mounted | exit 1: the endpoints would only answer 503 |
 * | startServer (the port is taken …) | the session is closed, exit 1 |
 * | SIGINT / SIGTERM | the server stops taking requests, the session closes (its memory's connections), exit 0 |
 */
export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Serve the session's memory over HTTP (GET /memory/events, /memory/sessions)",
  description: [
    "Creates the session a config describes — its memory from the config's \"memory\" entry, else",
    "from MEMORY_ENABLED / MEMORY_TYPE / MEMORY_MAX_SESSIONS … — and serves it until SIGINT or SIGTERM:",
    "",
    "  GET /memory/events?limit=&session_id=   { agent, events, total }, newest last (limit ≤ 1000)",
    "  GET /memory/sessions                    { agent, sessions, total }",
    "  GET /openapi.json                       the OpenAPI document",
    "",
    `Binds ${DEFAULT_HOST} unless --host says otherwise; with --token (or ${TOKEN_VARIABLE}) every`,
    "route but /openapi.json wants `Authorization: Bearer <token>`. Prints the URL when it listens.",
    "",
    "Examples:",
    "  MEMORY_TYPE=local amplifier-ts serve --port 8000",
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
  },
  run: serve,
};

async function serve({ values, io }: CliInvocation): Promise<number> {
  const port = parsePort(values.port);
  const host = stringOption(values.host, "--host") ?? DEFAULT_HOST;
  const agentName = stringOption(values["agent-name"], "--agent-name") ?? "agent";
  const token = stringOption(values.token, "--token") ?? (process.env[TOKEN_VARIABLE] || undefined);
  const config = stringOption(values.config, "--config");

  let session: Session;
  try {
    session = await createSession(config, { cwd: io.cwd });
  } catch (error) {
    if (!isAmplifierError(error)) throw error;
    return failed(io.stderr, error);
  }
  const memory = memoryOf(session.coordinator);
  if (memory === undefined) {
    await session.close();
    io.stderr.write(`error: no memory is mounted: add "memory": { "module": "memory-local" } to the config, or set MEMORY_TYPE (local, postgres, redis)\n`);
    return 1;
  }

  let server;
  try {
    server = await startServer({ coordinator: session.coordinator, port, host, agentName, ...(token === undefined ? {} : { token }) });
  } catch (error) {
    await session.close();
    if (isAmplifierError(error)) return failed(io.stderr, error);
    io.stderr.write(`error: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return 1;
  }
  if (token === undefined && !isLoopback(host)) io.stderr.write(`warning: serving ${host} without a token: anyone who reaches it reads the memory (--token or ${TOKEN_VARIABLE})\n`);
  io.stdout.write(`serving the ${memory.kind} memory of agent "${agentName}" at ${server.url}\n`);
  io.stdout.write(`  ${server.url}/memory/events\n  ${server.url}/memory/sessions\n  ${server.url}/openapi.json\n`);

  const signal = await untilStopSignal();
  io.stderr.write(`${signal}: stopping\n`);
  await server.close();
  await session.close();
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
