import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, startFakeApiServer, type FakeApiServer } from "../../../test/providers/fake-api-server.js";
import { scriptedReply } from "./scripted-model.js";

/**
 * The root README's "Already on the AI SDK? Add one line." block, run as written (test/docs compiles
 * it under strict; it is marked no-run there because it calls the OpenAI API): the default `openai`
 * provider of @ai-sdk/openai reads OPENAI_BASE_URL and OPENAI_API_KEY, so pointing them at the fake
 * server runs the very text of the README — Responses API, `store` on (its default), both lines.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const HEADING = "### Already on the AI SDK? Add one line.";

function readmeBlock(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf(HEADING));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (readme.indexOf(HEADING) === -1 || !block) throw new Error(`README.md: no \`\`\`ts block under "${HEADING}"`);
  return block[1]!;
}

let fake: FakeApiServer;
const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };

beforeAll(async () => {
  fake = await startFakeApiServer((api, body, index) => scriptedReply(api, body, index));
  process.env.OPENAI_BASE_URL = `${fake.url}/v1`;
  process.env.OPENAI_API_KEY = API_KEY;
});

afterAll(async () => {
  for (const [name, value] of [["OPENAI_BASE_URL", saved.url], ["OPENAI_API_KEY", saved.key]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await fake?.close();
});

describe("the README's AI SDK block", () => {
  it("runs as written against the fake server: both generateText calls, every request valid", async () => {
    const file = join(ROOT, ".cache", "readme-blocks", "ai-sdk-add-one-line.ts");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, readmeBlock());
    const logged: unknown[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void logged.push(args.join(" "));
    try {
      await import(file);
    } finally {
      console.log = log;
    }
    // Each generateText: a tool call, then the answer.
    expect(fake.received.map((r) => r.api)).toEqual(["responses", "responses", "responses", "responses"]);
    expect(fake.received.flatMap((r) => r.problems)).toEqual([]);
    // store on (the provider's default): earlier output items went back as item_reference, and resolved.
    expect(fake.received.some((r) => r.resolved !== undefined)).toBe(true);
    expect(logged).toEqual([expect.stringMatching(/^Answer/)]);
  });
});
