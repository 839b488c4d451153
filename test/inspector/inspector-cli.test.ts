/**
 * The Inspector from the command line: `replay <file> --html report.html` in-process, and
 * `serve --sessions <folder>` as the built executable in a real process (SIGTERM → exit 0).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InspectorSession, InspectorSessionSummary } from "@amplifier-ts/inspector";
import { runCli } from "../../src/cli/run-cli.js";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const SAMPLE = fileURLToPath(new URL("../../examples/sample-session.jsonl", import.meta.url));

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "inspector-cli-"));
  const lines = (await readFile(SAMPLE, "utf8")).split("\n").filter((l) => l.trim() !== "").slice(0, 40);
  await writeFile(join(dir, "short.jsonl"), `${lines.join("\n")}\n`);
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

function io() {
  let stdout = "";
  let stderr = "";
  return { io: { cwd: dir, stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } }, out: () => stdout, err: () => stderr };
}

describe("replay --html", () => {
  it("writes one self-contained file (script, style and session inline under a hashed CSP) and prints the usual tables", async () => {
    const run = io();
    const code = await runCli(["replay", "short.jsonl", "--html", "report.html", "--budget", "3000"], run.io);
    expect(code, run.err()).toBe(0);
    expect(run.err()).toMatch(/wrote report.html: the Inspector's views of \d+ turns in one file/);
    expect(run.out()).toContain("turns");
    const html = await readFile(join(dir, "report.html"), "utf8");
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/);
    const data = JSON.parse(/<script type="application\/json" id="inspector-report">([^]*?)<\/script>/.exec(html)![1]!) as { session: InspectorSession };
    expect(data.session.messages).toHaveLength(40);
    expect(data.session.analysis!.turns.length).toBeGreaterThan(5);
    expect(data.session.analysis!.turns.at(-1)!.decisions!.some((run) => run.decision === "dropped")).toBe(true);
  });

  it("refuses an empty --html value as a usage error", async () => {
    const run = io();
    expect(await runCli(["replay", "short.jsonl", "--html", ""], run.io)).toBe(2);
    expect(run.err()).toContain("--html");
  });
});

describe("serve --sessions as a process", () => {
  it("serves the Inspector over a JSONL folder without a memory; SIGTERM → exit 0", async () => {
    const child = spawn(process.execPath, [MAIN, "serve", "--sessions", dir, "--port", "0", "--budget", "3000"], { cwd: dir, env: { ...process.env, MEMORY_TYPE: "" }, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        // The whole banner: the URL line, then the routes down to the OpenAPI document.
        const found = / at (http:\/\/\S+)\n[^]*\/openapi\.json\n/.exec(stdout);
        if (found) resolve(found[1]!);
      });
      void exit.then((code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
    });
    expect(stdout).toContain(`Inspector: ${url}/ (sessions of jsonl ${dir})`);
    expect((await fetch(`${url}/`)).headers.get("content-security-policy")).toContain("script-src 'self'");
    const { sessions } = (await (await fetch(`${url}/inspector/api/sessions`)).json()) as { sessions: InspectorSessionSummary[] };
    expect(sessions.map((s) => [s.source, s.sessionId, s.messages])).toEqual([["jsonl", "short", 40]]);
    const session = (await (await fetch(`${url}/inspector/api/session?source=jsonl&id=short`)).json()) as InspectorSession;
    expect(session.analysis!.turns[0]!.budget).toBe(3000);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    // The Inspector only reads: the session it opened got no sidecar index (short.jsonl.index) beside it.
    expect((await readdir(dir)).sort()).toEqual(["short.jsonl"]);
  });
});
