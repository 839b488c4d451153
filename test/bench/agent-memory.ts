/**
 * Agent memory (issue 16): the ring buffer's addEvent time from 1k to 1M events, and the HTTP
 * endpoints under load — the server in a child process holding 1,000 sessions × 500 events,
 * autocannon in this process.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { LocalMemory } from "../../modules/memory-local/index.js";
import { startServer } from "../../modules/server/index.js";
import { check, type BenchContext, type ScenarioResult, type Scenario } from "./scenario.js";

export const agentMemoryScenario: Scenario = {
  id: "agent-memory",
  data: { short: "ours: synthetic events", detail: "ours — synthetic memory events written by the scenario (no outside data)" },
  title: "Agent memory: ring buffer and /memory endpoints",
  method:
    "memory-local, one session with maxEventsPerSession 500: N addEvent calls (a prepared event, so only the append and its checks are timed), time per call for N = 1k … 1M — flat means O(1) append and eviction. " +
    "Endpoints: a child process seeds 1,000 sessions × 500 events in memory-local and serves them (startServer, 127.0.0.1); this process runs autocannon (10 connections, 10 s per route, after a 2 s warm-up) against GET /memory/sessions, GET /memory/events?session_id=… (limit 100) and GET /memory/events?limit=100 and ?limit=1000 (newest over all sessions: the memory's getRecentEvents).",
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const quick = ctx.options.quick;
    const sizes = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
    const ringRows: string[][] = [];
    const perCall: number[] = [];
    for (const n of sizes) {
      const memory = new LocalMemory({ maxEventsPerSession: 500 });
      const id = await memory.createSession({ appName: "bench", userId: "u" });
      const event = memory.createEvent("tool_result", { tool: "calc", result: 4 });
      for (let i = 0; i < Math.min(n, 1_000); i++) await memory.addEvent(id, event); // warm-up
      const started = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await memory.addEvent(id, event);
      const ns = Number(process.hrtime.bigint() - started) / n;
      perCall.push(ns);
      ringRows.push([n.toLocaleString("en-US"), `${(ns / 1000).toFixed(2)} µs`, String((await memory.getMemoryStats()).totalEvents)]);
      ctx.log(`agent-memory: ${n} addEvent → ${(ns / 1000).toFixed(2)} µs each`);
    }
    const ratio = perCall.at(-1)! / perCall[0]!;

    const sessions = quick ? 100 : 1_000;
    const server = await startChild(ctx.entry, sessions, 500);
    const routes = [
      ["GET /memory/sessions", `${server.url}/memory/sessions`],
      ["GET /memory/events?session_id=…", `${server.url}/memory/events?session_id=s500&limit=100`],
      ["GET /memory/events?limit=100", `${server.url}/memory/events?limit=100`],
      ["GET /memory/events?limit=1000", `${server.url}/memory/events?limit=1000`],
    ] as const;
    const loadRows: string[][] = [];
    const data: Record<string, unknown> = { addEventNs: Object.fromEntries(sizes.map((n, i) => [n, perCall[i]])) };
    try {
      for (const [label, url] of routes) {
        await autocannon({ url, connections: 10, duration: 2 });
        const result = await autocannon({ url, connections: 10, duration: quick ? 3 : 10 });
        loadRows.push([label, Math.round(result.requests.average).toLocaleString("en-US"), `${result.latency.p50} ms`, `${result.latency.p99} ms`, String(result.non2xx + result.errors)]);
        data[label] = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
        ctx.log(`agent-memory: ${label} ${Math.round(result.requests.average)} req/s p99 ${result.latency.p99} ms`);
      }
    } finally {
      server.stop();
    }
    return {
      checks: [check("memory-local addEvent, 1M vs 1k events (flat = O(1))", `${ratio.toFixed(2)}×`, "≤ 2×", ratio <= 2)],
      tables: [
        { title: "memory-local addEvent (ring buffer of 500)", columns: ["events added", "per addEvent", "events kept"], rows: ringRows },
        { title: `/memory endpoints, ${sessions.toLocaleString("en-US")} sessions × 500 events, autocannon from another process`, columns: ["route", "requests/s", "p50", "p99", "errors"], rows: loadRows },
      ],
      notes: [],
      data,
    };
  },
};

/** The server side: seeds a LocalMemory and serves it; prints the url. */
export async function agentMemoryChild(args: string[]): Promise<void> {
  const sessions = Number(args[0]);
  const events = Number(args[1]);
  const memory = new LocalMemory({ maxSessions: sessions, maxEventsPerSession: events });
  for (let s = 0; s < sessions; s++) {
    const id = await memory.createSession({ appName: "bench", userId: `u${s % 10}`, sessionId: `s${s}` });
    for (let e = 0; e < events; e++) await memory.addEvent(id, memory.createEvent(e % 2 ? "agent_response" : "user_message", `message ${e} of session ${s}`));
  }
  const server = await startServer({ memory, port: 0, agentName: "bench" });
  process.stdout.write(`${server.url}\n`);
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await server.close();
}

async function startChild(entry: string, sessions: number, events: number): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [entry, "--child", "agent-memory", String(sessions), String(events)], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`memory server exited with ${code}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}
