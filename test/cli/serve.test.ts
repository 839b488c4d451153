/**
 * `amplifier-ts serve`: the built executable (dist/cli/main.js, built by the global setup) in a
 * real process, as an operator starts it — the session's memory from the config, real HTTP
 * requests, SIGTERM → exit 0 with nothing left listening — and its refusals in-process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RedisMemory } from "../../modules/memory-redis/index.js";
import { runCli } from "../../src/cli/run-cli.js";
import { REDIS_URL, uniqueName } from "../memory/memory-support.js";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-serve-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

describe("amplifier-ts serve as a process", () => {
  it("serves the config's memory (Redis, filled by another process) on a free port; SIGTERM → exit 0, the port closed", async () => {
    const keyPrefix = uniqueName("amp-serve-test:");
    const writer = new RedisMemory({ url: REDIS_URL, keyPrefix });
    try {
      await writer.createSession({ appName: "agent", userId: "u", sessionId: "s1" });
      await writer.createSession({ appName: "agent", userId: "u", sessionId: "s2" });
      await writer.addEvent("s1", writer.createEvent("user_message", "What is 2+2?"));
      await writer.addEvent("s2", writer.createEvent("user_message", "Hello!"));
      await writer.addEvent("s1", writer.createEvent("agent_response", "The answer is 4"));
      await writeFile(join(dir, "amplifier.config.json"), JSON.stringify({ session: { context: { module: "context-simple" } }, memory: { module: "memory-redis", config: { url: REDIS_URL, keyPrefix } } }));

      const server = startServe(["serve", "--config", "amplifier.config.json", "--port", "0", "--agent-name", "my-agent", "--token", "secret"]);
      const url = await server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const auth = { headers: { authorization: "Bearer secret" } };

      expect((await fetch(`${url}/memory/sessions`)).status).toBe(401);
      expect(await (await fetch(`${url}/memory/sessions`, auth)).json()).toEqual({ agent: "my-agent", sessions: ["s1", "s2"], total: 2 });
      const all = (await (await fetch(`${url}/memory/events?limit=2`, auth)).json()) as { agent: string; events: { content: unknown; session_id: string }[]; total: number };
      expect(all.agent).toBe("my-agent");
      expect(all.events.map((e) => [e.session_id, e.content])).toEqual([["s2", "Hello!"], ["s1", "The answer is 4"]]);
      const one = (await (await fetch(`${url}/memory/events?session_id=s1`, auth)).json()) as { events: { event_type: string }[]; total: number };
      expect(one.events.map((e) => e.event_type)).toEqual(["user_message", "agent_response"]);
      expect(one.total).toBe(2);

      server.child.kill("SIGTERM");
      expect(await server.exit).toEqual({ code: 0, signal: null });
      expect(server.stderr()).toContain("SIGTERM: stopping");
      await expect(fetch(`${url}/memory/sessions`, auth)).rejects.toThrow();
    } finally {
      await writer.close();
      const cleaner = new RedisMemory({ url: REDIS_URL, keyPrefix });
      for (const id of await cleaner.listSessions()) await cleaner.deleteSession(id);
      await cleaner.close();
    }
  });

  it("takes the memory from MEMORY_* variables without a config file, and stops on SIGINT with exit 0", async () => {
    const server = startServe(["serve", "--port", "0"], { MEMORY_TYPE: "local", MEMORY_MAX_SESSIONS: "10" });
    const url = await server.url;
    expect(server.stdout()).toContain('serving the local memory of agent "agent"');
    // The server's own local memory is empty by nature: it says so, and how to serve an agent's memory.
    await expect.poll(() => server.stdout()).toContain("starts empty");
    expect(server.stdout()).toMatch(/MEMORY_TYPE=postgres with AMPLIFIER_PG_URL=postgres:\/\/[\s\S]*MEMORY_TYPE=redis with AMPLIFIER_REDIS_URL=redis:\/\//);
    expect(await (await fetch(`${url}/memory/events`)).json()).toEqual({ agent: "agent", events: [], total: 0 });
    expect((await fetch(`${url}/memory/events?limit=5000`)).status).toBe(400);
    server.child.kill("SIGINT");
    expect(await server.exit).toEqual({ code: 0, signal: null });
  });
});

describe("amplifier-ts serve: refusals (in-process)", () => {
  const io = () => {
    const out = { stdout: "", stderr: "" };
    return { out, io: { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) }, cwd: dir } };
  };

  it("a bad --port is a usage error (exit 2) with the command's help", async () => {
    const { out, io: streams } = io();
    expect(await runCli(["serve", "--port", "http"], streams)).toBe(2);
    expect(out.stderr).toContain('--port expects a whole number 0-65535, got "http"');
    expect(out.stderr).toContain("Usage: amplifier-ts serve [options]");
  });

  it("without a memory (no config entry, no MEMORY_* variables) it refuses to serve: exit 1, says how to add one", async () => {
    const { out, io: streams } = io();
    expect(await runCli(["serve", "--port", "0"], streams)).toBe(1);
    expect(out.stderr).toContain("no memory is mounted");
    expect(out.stdout).toBe("");
  });

  it("help serve lists the options and the endpoints", async () => {
    const { out, io: streams } = io();
    expect(await runCli(["help", "serve"], streams)).toBe(0);
    for (const text of ["--config <file>", "--port <port>", "--host <host>", "--agent-name <name>", "--token <token>", "AMPLIFIER_SERVER_TOKEN", "GET /memory/events", "GET /memory/sessions"]) expect(out.stdout).toContain(text);
  });
});

// ---- helpers ----

function startServe(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MEMORY_") && name !== "AMPLIFIER_SERVER_TOKEN"));
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = / at (http:\/\/\S+)\n/.exec(stdout);
      if (found) resolve(found[1]!);
    });
    void exit.then(({ code }) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return { child, url, exit, stdout: () => stdout, stderr: () => stderr };
}
