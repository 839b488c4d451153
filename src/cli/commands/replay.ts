import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { formatReplay, formatReplayJson, ALL_ROWS_UP_TO, DEFAULT_EVERY } from "../../replay/format-replay.js";
import { createProgressBar, type ProgressStream } from "../../replay/progress-bar.js";
import { writeHtmlReport } from "../../replay/html-report.js";
import { runReplay, type ReplayResult } from "../../replay/run-replay.js";
import { CliUsageError, type CliCommand, type CliInvocation } from "../command.js";
import { rawWriter } from "../terminal-safe.js";

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
const EXIT_INTERRUPTED = 130;

/**
 * `amplifier-ts replay <transcript.jsonl>`: feeds a recorded conversation through a context module
 * turn by turn (core/replay/run-replay.ts) and prints what each window cost. Exit 0 done, 1 the
 * transcript or the config could not be used, 2 a bad command line, 130 interrupted.
 */
export const replayCommand: CliCommand = {
  name: "replay",
  summary: "Feed a recorded conversation through a context module, turn by turn, and measure every window",
  description: [
    "Reads a JSONL transcript (one message per line) and replays it through the configured context",
    "module: before each assistant message it requests a window, as an orchestrator would, then stores",
    "the message. Prints one row per turn (history and window tokens, messages kept / removed /",
    "truncated, the share of the previous window kept as a prefix, ms per call) and a summary.",
    "",
    "Without --config, the embedded context-persistent runs in a temporary folder (removed after).",
    `Up to ${ALL_ROWS_UP_TO} turns every row is printed; above, every ${DEFAULT_EVERY}th and the last (see --every).`,
    "The summary always covers every turn. A progress bar is drawn on stderr when stderr is a",
    "terminal (never with --json).",
    "",
    "Examples:",
    "  amplifier-ts replay examples/sample-session.jsonl",
    "  amplifier-ts replay session.jsonl --budget 32000 --explain 120",
    "  amplifier-ts replay session.jsonl --json | jq .summary",
    "  amplifier-ts replay session.jsonl --cache --every 25",
    "  amplifier-ts replay session.jsonl --html report.html   # the Inspector's views in one file",
  ].join("\n"),
  arguments: [{ name: "transcript.jsonl", description: "Recorded conversation: one JSON message per line", optional: false }],
  options: {
    model: { type: "string", placeholder: "name", description: "Model to count tokens with and size the budget from (default gpt-4o)" },
    budget: { type: "string", placeholder: "tokens", description: "Fixed token budget per request (default: the model's window − max output − margin)" },
    config: { type: "string", placeholder: "path", description: "Config file whose context module to replay through (default: embedded context-persistent)" },
    json: { type: "boolean", description: "Print one JSON document { summary, turns, explain? } to stdout instead of tables" },
    explain: { type: "string", placeholder: "turn", description: "Show that turn's per-message decisions (kept, truncated, dropped …) as a table" },
    every: { type: "string", placeholder: "n", description: "Print every n-th turn row and the last (the summary covers all turns)" },
    cache: { type: "boolean", description: "Simulate the provider's prompt cache: cached input per turn, hit rate, cost at list prices, against a naive tail window" },
    html: { type: "string", placeholder: "file", description: "Also write the Inspector's views (timeline, every turn's window, charts) as one self-contained HTML file" },
  },
  run: replay,
};

async function replay({ positionals, values, io }: CliInvocation): Promise<number> {
  const given = positionals[0];
  if (given === undefined) throw new CliUsageError("missing the transcript: amplifier-ts replay <transcript.jsonl>");
  const budget = positiveInteger("budget", values.budget, "a whole number of tokens greater than 0, e.g. --budget 32000");
  const explainTurn = positiveInteger("explain", values.explain, "a turn number from 1, e.g. --explain 12");
  const every = positiveInteger("every", values.every, "a whole number greater than 0, e.g. --every 5");
  const model = values.model;
  if (model !== undefined && (typeof model !== "string" || model.trim() === "")) {
    throw new CliUsageError("--model expects a model name, e.g. --model gpt-4o");
  }
  const json = values.json === true;
  const html = values.html;
  if (html !== undefined && (typeof html !== "string" || html.trim() === "")) throw new CliUsageError("--html expects a file to write, e.g. --html report.html");

  const transcript = resolve(io.cwd, given);
  const problem = await fileProblem(transcript);
  if (problem !== undefined) {
    io.stderr.write(`error: transcript ${given} ${problem}${given === transcript ? "" : ` (looked at ${transcript})`}\n`);
    return 1;
  }
  const config = typeof values.config === "string" ? resolve(io.cwd, values.config) : undefined;

  // The bar draws with \r and ESC[K by design: it writes to the stream under runCli's terminal-safe writer.
  const stderr = rawWriter(io.stderr) as ProgressStream;
  const controller = new AbortController();
  let outOfRange: string | undefined;
  let progress = { done: 0, total: 0 };
  let bar: ReturnType<typeof createProgressBar> | undefined;
  // Only the real program owns Ctrl-C; an embedding application keeps its own handler.
  const ownsProcess = rawWriter(io.stderr) === process.stderr;
  const onInterrupt = () => controller.abort(new Error("interrupted"));
  if (ownsProcess) process.once("SIGINT", onInterrupt);

  let result: ReplayResult;
  try {
    if (typeof html === "string") {
      // The report explains every turn: one replay serves the file and the tables below.
      result = await writeHtmlReport(transcript, resolve(io.cwd, html), {
        ...(model === undefined ? {} : { model: model as string }),
        ...(budget === undefined ? {} : { budget }),
        ...(config === undefined ? {} : { config }),
        ...(values.cache === true ? { cache: true } : {}),
        ...(explainTurn === undefined ? {} : { explainTurn }),
      });
      io.stderr.write(`wrote ${html}: the Inspector's views of ${result.summary.turns} turns in one file\n`);
    } else result = await runReplay({
      transcript,
      ...(model === undefined ? {} : { model: model as string }),
      ...(budget === undefined ? {} : { budget }),
      ...(config === undefined ? {} : { config }),
      ...(explainTurn === undefined ? {} : { explainTurn }),
      ...(values.cache === true ? { cache: true } : {}),
      signal: controller.signal,
      onTurn(turn, total) {
        progress = { done: turn.turn, total };
        if (turn.turn === 1 && explainTurn !== undefined && explainTurn > total) {
          // Known from the first turn on: stop now rather than replay everything for nothing.
          outOfRange = explainRangeMessage(explainTurn, total);
          controller.abort(new Error(outOfRange));
          return;
        }
        bar ??= json ? undefined : createProgressBar(stderr, total);
        bar?.update(turn.turn);
      },
    });
  } catch (error) {
    bar?.clear();
    if (outOfRange !== undefined) throw new CliUsageError(outOfRange);
    if (controller.signal.aborted) {
      const where = progress.total > 0 ? ` after turn ${progress.done} of ${progress.total}` : "";
      io.stderr.write(`replay interrupted${where}; nothing printed${config === undefined ? ", the temporary session folder removed" : ""}\n`);
      return EXIT_INTERRUPTED;
    }
    if (!isAmplifierError(error)) throw error;
    io.stderr.write(`error: ${error.message.trimEnd()}\n`);
    return 1;
  } finally {
    if (ownsProcess) process.removeListener("SIGINT", onInterrupt);
  }
  bar?.clear();
  if (explainTurn !== undefined && explainTurn > result.summary.turns) {
    throw new CliUsageError(explainRangeMessage(explainTurn, result.summary.turns));
  }

  if (json) {
    io.stdout.write(formatReplayJson(result, explainTurn === undefined ? {} : { explainTurn }));
    if (explainTurn !== undefined && result.explainSupported === false) {
      io.stderr.write(`note: module "${result.summary.module}" offers no explain (no explainLastWindow()); "explain" is null\n`);
    }
    return 0;
  }
  io.stdout.write(
    formatReplay(result, {
      transcript: given,
      budgetSource: budget !== undefined ? "--budget" : `as the module sized it for ${result.summary.model}`,
      ...(every === undefined ? {} : { every }),
      ...(explainTurn === undefined ? {} : { explainTurn }),
    }),
  );
  return 0;
}

/** Undefined when absent; the number when it is a whole number > 0; a usage error (exit 2) otherwise. */
function positiveInteger(name: string, value: string | boolean | undefined, expected: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new CliUsageError(`--${name} expects ${expected}; given "${String(value)}"`);
  }
  return n;
}

function explainRangeMessage(turn: number, total: number): string {
  return total === 0
    ? `--explain ${turn}: the transcript has no turns (no assistant message)`
    : `--explain ${turn}: the transcript has ${total} turn${total === 1 ? "" : "s"}; give a turn from 1 to ${total}`;
}

async function fileProblem(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? undefined : "is not a file";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "not found";
    if (code === "EACCES" || code === "EPERM") return "cannot be read (permission denied)";
    return `cannot be read (${code ?? String(error)})`;
  }
}
