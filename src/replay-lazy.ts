// The root's runReplay and analyzeSession: the same functions as amplifier-ts/replay's, loaded on
// first call. Both are async, so a dynamic import changes nothing a caller sees — but a session
// that never replays does not load the replay engine and the Inspector's analysis (24 modules,
// issue 31 item 4) when it imports the umbrella.
import type * as Replay from "./replay.js";

let loading: Promise<typeof Replay> | undefined;
function replay(): Promise<typeof Replay> {
  loading ??= import("./replay.js");
  return loading;
}

/** runReplay of amplifier-ts/replay (a recorded session fed through a context manager turn by turn), loaded on first call. */
export async function runReplay(...args: Parameters<typeof Replay.runReplay>): ReturnType<typeof Replay.runReplay> {
  return (await replay()).runReplay(...args);
}

/** analyzeSession of amplifier-ts/replay (the Inspector's analysis of a session), loaded on first call. */
export async function analyzeSession(...args: Parameters<typeof Replay.analyzeSession>): ReturnType<typeof Replay.analyzeSession> {
  return (await replay()).analyzeSession(...args);
}
