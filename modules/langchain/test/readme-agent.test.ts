import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDoc, ROOT } from "../../../test/docs/markdown.js";
import { API_KEY, startFakeApiServer, type FakeApiServer } from "../../../test/providers/fake-api-server.js";

/**
 * The root README's "Already on LangChain? Add one line." program, run AS WRITTEN: the block is read
 * from README.md, transpiled (esbuild, no bundling) into a file under .cache/ so its imports resolve
 * as a user's would (the built @amplifier-ts/langchain, langchain, @langchain/openai from the
 * repository's node_modules), and run by node with the OpenAI key and base URL in the environment —
 * pointing at the fake server. The 300-turn test (agent-300-turns.test.ts) runs the same middleware
 * line at length.
 */
const HEADING = "### Already on LangChain? Add one line.";

function readmeProgram(): { code: string; line: number } {
  const doc = readDoc("README.md");
  const at = doc.outside.findIndex((line) => line.trim() === HEADING);
  expect(at, `README.md has the heading "${HEADING}"`).toBeGreaterThanOrEqual(0);
  const fence = doc.fences.find((f) => f.line > at && (f.info[0] === "ts" || f.info[0] === "typescript"));
  if (!fence) throw new Error(`no ts block under "${HEADING}"`);
  return { code: fence.code, line: fence.line };
}

let fake: FakeApiServer;
beforeAll(async () => {
  fake = await startFakeApiServer((_api, body, index) => {
    const messages = body.messages as { role: string }[];
    return messages.at(-1)?.role === "tool"
      ? { id: `chatcmpl-${index}`, text: "v2 renamed fit() to fitWindow()." }
      : { id: `chatcmpl-${index}`, text: "", toolCalls: [{ id: `call_${index}`, name: "search", arguments: { query: "v2 changes" } }] };
  });
});
afterAll(async () => {
  await fake?.close();
});

describe('README "Already on LangChain? Add one line."', () => {
  it("runs as written against the fake OpenAI server: a tool call, its result, the answer — every request valid", async () => {
    const { code, line } = readmeProgram();
    expect(code).toContain("middleware: [fitWindowMiddleware()]");
    const dir = join(ROOT, ".cache", "readme-langchain");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `readme-${line}.mjs`);
    writeFileSync(file, transformSync(code, { loader: "ts", format: "esm", target: "node20" }).code);
    // Not spawnSync: the fake server answers from this process's event loop.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${fake.url}/v1`, NODE_OPTIONS: "" } }, (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
      );
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout.trim()).toBe("v2 renamed fit() to fitWindow().");
    expect(fake.received.length).toBe(2);
    expect(fake.received.flatMap((r) => r.problems)).toEqual([]);
    const last = fake.received[1]!.body.messages as { role: string }[];
    expect(last.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });
});
