import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { createError } from "@amplifier-ts/contracts";
import { messageViews, reportHtml, type InspectorReport } from "@amplifier-ts/inspector";
import type { ReplayResult } from "./run-replay.js";
import { readTranscript } from "./run-replay.js";
import { analyzeSession, type AnalyzeSessionOptions } from "./session-analysis.js";

/**
 * `replay <file> --html report.html`: the transcript replayed with explain on every turn
 * (analyzeSession) and written as ONE self-contained HTML file — the Inspector's session, turn and
 * chart views, its script, style and data inline, nothing fetched when it is opened (reportHtml).
 * Returns the replay, so the command prints its usual tables too.
 */
export async function writeHtmlReport(transcript: string, out: string, options: Omit<AnalyzeSessionOptions, "name"> & { explainTurn?: number } = {}): Promise<ReplayResult> {
  const { messages } = await readTranscript(transcript);
  const { explainTurn: _explainTurn, ...analyze } = options;
  const { analysis, tokens, replay } = await analyzeSession(messages, { ...analyze, name: transcript });
  const sessionId = basename(transcript).replace(/\.jsonl$/i, "");
  const report: InspectorReport = {
    title: `${sessionId} — amplifier-ts Inspector report`,
    generatedAt: new Date().toISOString(),
    session: { source: "transcript", sessionId, live: false, messages: messageViews(messages, tokens), events: [], analysis },
  };
  try {
    await writeFile(out, reportHtml(report));
  } catch (cause) {
    throw createError("INVALID_ARGUMENT", `cannot write the report ${out}`, { path: "--html", expected: "a writable file path", given: out, cause });
  }
  // The explanations went into the file; the tables (and --json) show the turns as replay does.
  if (options.explainTurn !== undefined) {
    replay.explain = replay.turns[options.explainTurn - 1]?.window;
    replay.explainSupported = replay.explain !== undefined;
  }
  for (const turn of replay.turns) delete turn.window;
  return replay;
}
