import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { forEachContentPart, type Message, type ToolCallPart } from "../../contracts/index.js";
import { createSession } from "../../src/session/index.js";
import { runTool, startTurn } from "../../src/turn/index.js";
import { API_KEY, startFakeApiServer, type FakeApiServer } from "./fake-api-server.js";

/**
 * README "An orchestrator loop", run as written against either provider module: the two configs
 * differ in ONE line (the provider entry). The keys and URLs come from the environment, as a
 * user's would; the servers are fake-api-server.ts (request rules applied to every call).
 */
const CONFIG_LINES = {
  openai: '{ "name": "model", "module": "provider-openai", "config": { "model": "gpt-4o" } }',
  anthropic: '{ "name": "model", "module": "provider-anthropic", "config": { "model": "claude-sonnet-4" } }',
};

function configFile(providerLine: string): string {
  return [
    "{",
    '  "session": { "context": { "module": "context-simple", "config": {} } },',
    `  "providers": [${providerLine}],`,
    '  "tools": [{ "name": "read_file", "module": "./read-file-tool.mjs" }],',
    '  "hooks": []',
    "}",
  ].join("\n");
}

const TOOL_MODULE = `export function mount() {
  return {
    definition: { type: "function", function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
    execute: ({ path }) => ({ output: path === "package.json" ? '{ "scripts": {} }' : "no such file" }),
  };
}
`;

/** README "An orchestrator loop", with the config file's path given (the README reads ./amplifier.config.json). */
async function readmeLoop(configPath: string): Promise<Message[]> {
  const session = await createSession(configPath);
  const { context, coordinator } = session;
  const provider = coordinator.get("providers", "model");
  if (!provider?.complete) throw new Error('mount a provider named "model" that can complete()');
  const tools = Object.values(coordinator.get("tools")).map((tool) => tool.definition);

  await context.addMessage({ role: "system", content: "You are a careful coding agent." });
  const turn = await startTurn(coordinator, "Why do the tests fail?");
  for (let step = 0; step < 20; step++) {
    const { extraMessages } = turn;
    const messages = await context.getMessagesForRequest(undefined, provider, { tools, extraMessages });
    const { message } = await provider.complete({ messages, tools });
    await context.addMessage(message);
    const calls: ToolCallPart[] = [];
    let answer = "";
    forEachContentPart(message, { text: (text) => void (answer += text), toolCall: (call) => void calls.push(call) });
    if (calls.length === 0) {
      await turn.complete(answer);
      break;
    }
    for (const call of calls) {
      const result = await runTool(coordinator, call);
      await context.addMessage({ role: "tool", tool_call_id: call.id, content: result.output });
    }
  }
  const history = await context.getMessages();
  await session.close();
  return history;
}

let server: FakeApiServer;
let dir: string;
beforeAll(async () => {
  // The model: first a tool call, then (once the result is in the request) an answer.
  server = await startFakeApiServer((_api, body) =>
    JSON.stringify(body).includes("scripts")
      ? { text: "package.json has no test script." }
      : { text: "Let me read package.json.", toolCalls: [{ id: "toolu_01A", name: "read_file", arguments: { path: "package.json" } }] },
  );
  dir = mkdtempSync(join(tmpdir(), "readme-loop-"));
  writeFileSync(join(dir, "read-file-tool.mjs"), TOOL_MODULE);
  vi.stubEnv("OPENAI_API_KEY", API_KEY);
  vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
  vi.stubEnv("ANTHROPIC_API_KEY", API_KEY);
  vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("README: the orchestrator loop runs against either provider by changing one config line", () => {
  it("the two configs differ in exactly one line", () => {
    const a = configFile(CONFIG_LINES.openai).split("\n");
    const b = configFile(CONFIG_LINES.anthropic).split("\n");
    expect(a.filter((line, i) => line !== b[i])).toHaveLength(1);
  });

  it.each(Object.entries(CONFIG_LINES))("%s: tool call, tool result, answer — every request valid for its API", async (name, line) => {
    const path = join(dir, `${name}.amplifier.config.json`);
    writeFileSync(path, configFile(line));
    const before = server.received.length;
    const history = await readmeLoop(path);
    const requests = server.received.slice(before);
    expect(requests.map((r) => r.api)).toEqual(name === "openai" ? ["chat", "chat"] : ["anthropic", "anthropic"]);
    expect(requests.flatMap((r) => r.problems)).toEqual([]);
    // The tools went with every request.
    for (const request of requests) expect(JSON.stringify(request.body.tools)).toContain("read_file");
    expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(history[3]).toMatchObject({ role: "tool", tool_call_id: "toolu_01A", content: '{ "scripts": {} }' });
    expect(JSON.stringify(history[4]?.content)).toContain("package.json has no test script.");
  });
});
