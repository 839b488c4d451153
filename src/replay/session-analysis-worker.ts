/**
 * An analysis thread (worker_threads): runs analyzeSession for the server's thread
 * (session-analysis-threads.ts), one analysis at a time, as long as the server keeps it. The
 * protocol is in session-analysis-protocol.ts.
 *
 * The result goes back in parts of about PART_BYTES of JSON each, the next one when the server
 * asks: the server copies one part per turn of its event loop, never the whole analysis at once.
 * The replay's turns go without their `window` (what explainLastWindow() returned, kept in the
 * analysis as decision runs): on the 592-message sample that is 19.6 MB of 19.7, a second of copying.
 */
import { parentPort } from "node:worker_threads";
import type { Message } from "@amplifier-ts/contracts";
import { isAmplifierError } from "@amplifier-ts/contracts";
import type { AnalysisPart, FromAnalysisThread, ThreadAnalysisOptions, ThreadError, ToAnalysisThread } from "./session-analysis-protocol.js";
import { analyzeSession } from "./session-analysis.js";
import type { ReplayTurn } from "./run-replay.js";

/** About this much JSON per part (one copy of it on the server's thread: well under a millisecond). */
const PART_BYTES = 64 * 1024;

const port = parentPort;
if (port === null) throw new Error("session-analysis-worker.js runs as a worker thread (analyzeSessionInWorker starts it)");

let options: ThreadAnalysisOptions = {};
let messages: Message[] = [];
let parts: AnalysisPart[] = [];

const send = (message: FromAnalysisThread) => port.postMessage(message);

port.on("message", (message: ToAnalysisThread) => {
  switch (message.type) {
    case "start":
      options = message.options;
      messages = [];
      parts = [];
      break;
    case "messages":
      for (const m of message.messages) messages.push(m);
      break;
    case "run":
      void run();
      break;
    case "more":
      sendPart();
      break;
  }
});

async function run(): Promise<void> {
  try {
    const { analysis, tokens, replay } = await analyzeSession(messages, { ...options, onProgress: (turnsDone, turns) => send({ type: "progress", turnsDone, turns }) });
    messages = [];
    const { turns, ...analysisRest } = analysis;
    const { turns: replayTurns, ...replayRest } = replay;
    parts = partsOf(turns, replayTurns.map(withoutWindow));
    parts[0]!.tokens = tokens;
    parts.at(-1)!.done = { analysis: analysisRest, replay: replayRest };
    sendPart();
  } catch (error) {
    messages = [];
    send({ type: "failed", error: threadError(error) });
  }
}

function sendPart(): void {
  const part = parts.shift();
  if (part !== undefined) send({ type: "part", part });
}

/** The turns in runs of about PART_BYTES of JSON (at least one part, at least one turn in each but an empty one). */
function partsOf(turns: AnalysisPart["turns"], replayTurns: ReplayTurn[]): AnalysisPart[] {
  const out: AnalysisPart[] = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < turns.length; i++) {
    bytes += JSON.stringify(turns[i]).length + JSON.stringify(replayTurns[i] ?? null).length;
    if (bytes >= PART_BYTES || i === turns.length - 1) {
      out.push({ turns: turns.slice(from, i + 1), replayTurns: replayTurns.slice(from, i + 1) });
      from = i + 1;
      bytes = 0;
    }
  }
  // A replay may have more turns than the analysis shows (never today): they go with the last part.
  if (out.length === 0) out.push({ turns: [], replayTurns: [] });
  if (replayTurns.length > turns.length) out.at(-1)!.replayTurns.push(...replayTurns.slice(turns.length));
  return out;
}

function withoutWindow(turn: ReplayTurn): ReplayTurn {
  const { window: _window, ...rest } = turn;
  return rest;
}

/** The error as it can cross threads: details kept as JSON (an Error in them becomes { name, message, code }). */
function threadError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const out: ThreadError = { name: error.name, message: error.message };
  if (isAmplifierError(error)) {
    out.code = error.code;
    try {
      out.details = JSON.parse(JSON.stringify(error.details, (_key, value: unknown) => (value instanceof Error ? { name: value.name, message: value.message, ...(isAmplifierError(value) ? { code: value.code } : {}) } : value))) as Record<string, unknown>;
    } catch {
      // Details that do not serialize (a cycle, a BigInt) stay behind; the message still says them.
    }
  }
  return out;
}
