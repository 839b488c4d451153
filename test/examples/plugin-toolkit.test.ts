import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The toolkit for plugin authors (modules/window/README.md): what a third-party context module
 * imports from @amplifier-ts/window, @amplifier-ts/tokens, @amplifier-ts/core and @amplifier-ts/contracts, checked the
 * way a third party gets it — built declarations and dist JS, strict TypeScript, plain Node — and
 * the example plugin written on it, held to its size.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLUGIN_DIR = join(ROOT, "examples", "third-party-plugin");
const MAX_SOURCE_LINES = 250;

/** Source files of a package folder: .js/.ts (.d.ts included), without tests, README or node_modules. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "test" ? [] : sourceFiles(path);
    return /\.(?:[cm]?js|[cm]?ts)$/.test(name) && !/\.test\.|\.spec\./.test(name) ? [path] : [];
  });
}

/** Lines as `wc -l` counts them: newline characters. */
const lineCount = (file: string): number => readFileSync(file, "utf8").split("\n").length - 1;

describe("examples/third-party-plugin: written on the toolkit", () => {
  it(`its source (without tests and README) stays under ${MAX_SOURCE_LINES} lines`, () => {
    const files = sourceFiles(PLUGIN_DIR);
    const names = files.map((file) => relative(PLUGIN_DIR, file));
    expect(names).toEqual(expect.arrayContaining(["index.js", "index.d.ts"]));
    const lines = Object.fromEntries(files.map((file) => [relative(PLUGIN_DIR, file), lineCount(file)]));
    const total = Object.values(lines).reduce((a, b) => a + b, 0);
    expect(total, `lines per file: ${JSON.stringify(lines)}`).toBeLessThan(MAX_SOURCE_LINES);
  });
});

describe("the toolkit entries, as a plugin author gets them", () => {
  it("type-check under strict from the built declarations (window, core, contracts and the example's index.d.ts), with the README's code", () => {
    const dir = join(ROOT, ".cache", "plugin-toolkit-consumer");
    mkdirSync(dir, { recursive: true });
    const consumer = join(dir, "consumer.ts");
    writeFileSync(consumer, CONSUMER);
    // Every ```ts block of the window package's README compiles, as a file of its own.
    const readme = readFileSync(join(ROOT, "modules", "window", "README.md"), "utf8");
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const documented = blocks.map((code, i) => {
      const file = join(dir, `readme-${i}.ts`);
      writeFileSync(file, code);
      return file;
    });
    const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
    const args = ["--ignoreConfig", "--noEmit", "--strict", "--noUncheckedIndexedAccess", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--listFiles", consumer, ...documented];
    const result = spawnSync(tsc, args, { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    const files = result.stdout.split("\n").map((line) => line.trim().replaceAll("\\", "/"));
    const root = ROOT.replaceAll("\\", "/");
    for (const entry of ["modules/window/dist/index.d.ts", "modules/tokens/dist/index.d.ts", "core/dist/index.d.ts", "contracts/dist/index.d.ts", "examples/third-party-plugin/index.d.ts"]) {
      expect(files).toContain(`${root}${entry}`);
    }
    // Only published declarations: no TypeScript source of a workspace package is read.
    expect(files.filter((file) => file.startsWith(root) && file.endsWith(".ts") && !file.endsWith(".d.ts") && !file.includes("/.cache/"))).toEqual([]);
  });

  it("the example's declarations type-check on their own under strict, with library checks on (no skipLibCheck)", () => {
    const tsc = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
    const args = ["--ignoreConfig", "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", join(PLUGIN_DIR, "index.d.ts")];
    const result = spawnSync(tsc, args, { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it("plain Node (no source condition) loads the example on the built toolkit, by package name, and assembles a window", () => {
    const probe = [
      "const { Coordinator } = await import('@amplifier-ts/core');",
      "const { getTokenCounter } = await import('@amplifier-ts/tokens');",
      "const { assembleWindow, HistoryIndex, callsOf } = await import('@amplifier-ts/window');",
      "const { mount } = await import('amplifier-module-context-example');",
      "const coordinator = new Coordinator();",
      "const context = await mount(coordinator, { maxTurns: 1 });",
      "for (const i of [0, 1]) {",
      "  await context.addMessage({ role: 'user', content: 'question ' + i });",
      "  await context.addMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c' + i, type: 'function', function: { name: 'ls', arguments: '{}' } }] });",
      "}",
      "const window = await context.getMessagesForRequest(10000);",
      "const direct = assembleWindow([{ role: 'user', content: 'hi' }], { budget: 100, counter: getTokenCounter('gpt-4o') });",
      "console.log(JSON.stringify({",
      "  resolved: ['@amplifier-ts/core', '@amplifier-ts/tokens', '@amplifier-ts/window', '@amplifier-ts/contracts'].map((p) => import.meta.resolve(p)),",
      "  window: window.map((m) => [m.role, m.content]), direct: direct.messages.length, index: typeof HistoryIndex, calls: callsOf(window[1]).length,",
      "}));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const seen = JSON.parse(out.trim().split("\n").at(-1)!) as { resolved: string[]; window: [string, unknown][]; direct: number; index: string; calls: number };
    for (const url of seen.resolved) expect(url).toMatch(/\/dist\/index\.js$/);
    expect(seen.window).toEqual([
      ["user", "question 1"],
      ["assistant", null],
      ["tool", "[tool call interrupted: no result was recorded]"],
    ]);
    expect(seen).toMatchObject({ direct: 1, index: "function", calls: 1 });
  });
});

/**
 * A small third-party context module written against the toolkit entries, compiled strictly.
 * The @ts-expect-error lines prove the checks bite: an unused directive is an error itself.
 */
const CONSUMER = `
import { createError, isAmplifierError, validateMessage, validateMessages } from "@amplifier-ts/contracts";
import type { ContextManager, CoordinatorContract, Message, ModuleMeta, Provider, WindowRequestOptions } from "@amplifier-ts/contracts";
import { validateModuleConfig } from "@amplifier-ts/core";
import { getTokenCounter, TOKENS_CAPABILITY, type TokenCounter, type TokensCapability } from "@amplifier-ts/tokens";
import {
  assembleWindow, callsOf, explainBudget, freezeDeep, hasTurnContent, HistoryIndex, interruptedResults, INTERRUPTED_RESULT_TEXT,
  isCritical, isInstruction, isResultCarrier, isToolResultBlock, isTurnNote, OMITTED_HISTORY_TEXT, resolveBudget, resultIdsOf,
  resultParts, shallowCopy, stripResultBlocks, truncateParts, truncateText, windowMarkOf, WindowAssembler,
  type AssembledWindow, type AssembleOptions, type CallRef, type Unit, type WindowCounter, type WindowReport,
} from "@amplifier-ts/window";
import { mount as mountExample, RecentTurnsContext, type CoordinatorLike, type RecentTurnsConfig } from "amplifier-module-context-example";

export const meta: ModuleMeta = { name: "my-context", kind: "context", configSchema: { type: "object", properties: { maxTokens: { type: "integer" } } } };

/** Sends only the newest user turn, made provider-valid by the toolkit. */
export class LastTurnContext implements ContextManager {
  readonly #index = new HistoryIndex();
  constructor(private readonly tokens: () => TokensCapability | undefined) {}
  async addMessage(message: Message): Promise<void> {
    this.#index.append(freezeDeep(structuredClone(validateMessage(message))));
  }
  async getMessagesForRequest(tokenBudget?: number, provider?: Provider, options: WindowRequestOptions = {}): Promise<Message[]> {
    const info = provider ? await provider.getInfo() : undefined;
    const budget: number = resolveBudget({ tokenBudget, providerInfo: info, maxTokens: 8_000 });
    const counter: WindowCounter = (this.tokens() ?? { getTokenCounter }).getTokenCounter(info?.defaults?.model ?? "gpt-4o");
    const last = this.#index.turnStarts.at(-1) ?? 0;
    const units: Unit[] = this.#index.units.slice(last);
    const selection = units.flatMap((unit) => unit.members.map((member) => member.message));
    const assembleOptions: AssembleOptions = { budget, counter, ...(options.extraMessages ? { extraMessages: options.extraMessages } : {}) };
    const { messages, report }: AssembledWindow = assembleWindow(selection, assembleOptions);
    const summary: WindowReport = report;
    return summary.compacted ? messages : messages.map(shallowCopy);
  }
  async getMessages(): Promise<Message[]> {
    return this.#index.stored.map(shallowCopy);
  }
  async setMessages(messages: Message[]): Promise<void> {
    validateMessages(messages);
  }
  async clear(): Promise<void> {}
}

export async function mount(coordinator: CoordinatorContract, config: { maxTokens?: number } = {}): Promise<ContextManager> {
  validateModuleConfig(meta, config, { module: meta.name, at: ["config"] });
  const context = new LastTurnContext(() => coordinator.getCapability<TokensCapability>(TOKENS_CAPABILITY));
  await coordinator.mount("context", context);
  return context;
}

const message: Message = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] };
const calls: CallRef[] = callsOf(message);
const flags: boolean[] = [isInstruction(message), isTurnNote(message), isCritical(message), isResultCarrier(message), hasTurnContent(message), isToolResultBlock(undefined)];
const ids: string[] = resultIdsOf({ role: "tool", tool_call_id: "c1", content: "ok" });
const synthetic: Message[] = interruptedResults(message, calls);
const stripped: Message | undefined = stripResultBlocks({ role: "user", content: "hi" }, () => true).message;
const parts = resultParts({ role: "tool", tool_call_id: "c1", content: "x".repeat(100) });
const cut: Message = truncateParts({ role: "tool", tool_call_id: "c1", content: "x".repeat(100) }, parts.map((part) => ({ part, maxTokens: 5 })), (t) => t.length);
const short: string = truncateText("x".repeat(100), 10, (t) => t.length).text;
const texts: string[] = [INTERRUPTED_RESULT_TEXT, OMITTED_HISTORY_TEXT, String(windowMarkOf(cut)?.truncated?.chars)];
const counter: TokenCounter = getTokenCounter("gpt-4o");
const engine = new WindowAssembler([message]);
const source: string = explainBudget({ tokenBudget: 100 }).source;
const error = createError("BUDGET_TOO_SMALL", undefined, { module: meta.name, budget: 1, required: 2 });
const known: boolean = isAmplifierError(error, "BUDGET_TOO_SMALL");
const example: ContextManager = new RecentTurnsContext({ maxTurns: 2 });
const config: RecentTurnsConfig = { maxTurns: 3, safetyMargin: 500 };
export const host = (coordinator: CoordinatorContract): Promise<RecentTurnsContext> => mountExample(coordinator satisfies CoordinatorLike, config);
export const used = [flags, ids, synthetic, stripped, short, texts, counter, engine.length, source, known, example];

// @ts-expect-error the budget is required
assembleWindow([message], { counter });
// @ts-expect-error maxTurns is a number
export const wrong: RecentTurnsConfig = { maxTurns: "3" };
`;
