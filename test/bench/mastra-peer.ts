/**
 * The Mastra peer of the "peers" scenario: Mastra's memory processors as an agent applies them to
 * the remembered messages before a model call — `ToolCallFilter` (drops every message holding a
 * tool call or result) then `TokenLimiter(limit)` (walks back from the newest, counting each
 * message with js-tiktoken o200k, and keeps what fits) — and TokenLimiter alone. The system
 * prompt is the agent's instructions (`systemMessage`), not a remembered message.
 *
 * Mastra lives in test/bench/mastra (its own package.json and lock, pinned to @mastra/core 0.24 /
 * @mastra/memory 0.15, the last line supporting Node 20), installed there with `npm ci` the first
 * time the scenario runs: it pulls ~400 packages the project does not need.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Message } from "../../contracts/generated/message.js";
import { backToOurs, toModel, type Piece } from "./peer-messages.js";

const MASTRA_DIR = resolve("test/bench/mastra");

/** What the peers scenario needs of a peer (peers.ts's Peer). */
export interface MastraPeer {
  readonly name: string;
  open(history: readonly Message[]): Promise<{ turn(message: Message): Promise<readonly unknown[]>; toOurs(window: readonly unknown[]): Message[] }>;
}

interface CoreMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | Record<string, unknown>[];
  [tag: symbol]: number;
}

interface Processor {
  process(messages: CoreMessage[], options?: { systemMessage?: string }): CoreMessage[];
}

interface MastraProcessors {
  TokenLimiter: new (limit: number) => Processor;
  ToolCallFilter: new () => Processor;
}

/** Installs test/bench/mastra when needed and loads its processors; `version` is what was loaded. */
export async function loadMastra(log: (line: string) => void): Promise<{ processors: MastraProcessors; version: string }> {
  if (!existsSync(join(MASTRA_DIR, "node_modules/@mastra/memory/package.json"))) {
    log("peers: installing the Mastra peer (npm ci in test/bench/mastra)");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: MASTRA_DIR, stdio: ["ignore", "ignore", "inherit"] });
  }
  const require = createRequire(join(MASTRA_DIR, "package.json"));
  const processors = (await import(pathToFileURL(require.resolve("@mastra/memory/processors")).href)) as MastraProcessors;
  const version = (name: string) => (JSON.parse(readFileSync(join(MASTRA_DIR, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  return { processors, version: `@mastra/core ${version("@mastra/core")}, @mastra/memory ${version("@mastra/memory")}` };
}

const TAG = Symbol("amplifierBench");

/**
 * Ours → the AI SDK 4 CoreMessages Mastra 0.x remembers: toModel's messages (AI SDK 5+) with 4's
 * field names — a tool call's `args`, a tool result's `result` — and an assistant's lone text as a string.
 */
function toCore(message: Message, names: Map<string, string>): CoreMessage[] {
  return toModel(message, names).map((m): CoreMessage => {
    if (typeof m.content === "string") return { role: m.role, content: m.content };
    const parts = m.content.map((part): Record<string, unknown> => {
      if (part.type === "tool-call") return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, args: part.input };
      if (part.type === "tool-result") return { type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, result: (part.output as { value: unknown }).value };
      return { ...part };
    });
    const lone = m.role === "assistant" && parts.length === 1 && parts[0]!.type === "text";
    return { role: m.role, content: lone ? (parts[0]!.text as string) : parts };
  });
}

/**
 * The two Mastra peers over loaded processors. A piece is one CoreMessage of `origin` (a split user
 * message gives one per side; `blocks` names the side's blocks), mapped back by backToOurs.
 */
export function mastraPeers(processors: MastraProcessors, budget: number): MastraPeer[] {
  const peer = (name: string, filterTools: boolean): MastraPeer => ({
    name,
    async open(history) {
      const names = new Map<string, string>();
      const pieces: Piece[] = [];
      const remembered: CoreMessage[] = [];
      let instructions: CoreMessage | undefined;
      let instructionsText: string | undefined;
      const add = (m: Message) => {
        const converted = toCore(m, names);
        for (const c of converted) {
          const blocks = converted.length > 1 && Array.isArray(m.content) ? m.content.filter((b) => (c.role === "tool") === (b.type === "tool_result")) : undefined;
          c[TAG] = pieces.length;
          pieces.push({ origin: m, parts: converted.length, ...(blocks ? { blocks } : {}) });
          if (c.role === "system" && instructions === undefined && remembered.length === 0) {
            instructions = c;
            instructionsText = c.content as string;
          } else remembered.push(c);
        }
      };
      for (const m of history) add(m);
      const limiter = new processors.TokenLimiter(budget);
      const filter = filterTools ? new processors.ToolCallFilter() : undefined;
      return {
        async turn(message) {
          add(message);
          const kept = limiter.process(filter ? filter.process(remembered) : remembered, instructionsText === undefined ? {} : { systemMessage: instructionsText });
          return instructions ? [instructions, ...kept] : kept;
        },
        toOurs(window) {
          return backToOurs((window as CoreMessage[]).map((c) => c[TAG]), pieces);
        },
      };
    },
  });
  return [peer("Mastra ToolCallFilter + TokenLimiter", true), peer("Mastra TokenLimiter", false)];
}
