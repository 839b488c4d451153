import type { CliWriter } from "../cli/command.js";

/** A writer that may be a terminal (process.stderr is; test collectors and pipes are not). */
export interface ProgressStream extends CliWriter {
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressBarOptions {
  /** Text before the bar. Default "replay". */
  label?: string;
  /** Nothing is drawn before this much time has passed, so short runs never flash a bar. Default 150 ms. */
  delayMs?: number;
  /** At most one redraw per this many ms. Default 80 ms. */
  intervalMs?: number;
  /** Clock, for tests. Default performance.now. */
  now?: () => number;
}

export interface ProgressBar {
  /** `done` of `total` units finished; redraws when due. */
  update(done: number): void;
  /** Erases the bar (call before anything else is printed to the terminal). Idempotent. */
  clear(): void;
}

const NO_BAR: ProgressBar = { update() {}, clear() {} };

/**
 * A one-line progress bar redrawn in place with `\r`, on a terminal only: for a pipe, a file or a
 * CI log (isTTY not true) it is a no-op, so logs never collect carriage returns or partial bars.
 *
 *   replay  [██████████████░░░░░░░░░░░░]  173/323 turns  54%  1.2s
 */
export function createProgressBar(stream: ProgressStream, total: number, options: ProgressBarOptions = {}): ProgressBar {
  if (stream.isTTY !== true || !(total > 0)) return NO_BAR;
  const label = options.label ?? "replay";
  const delayMs = options.delayMs ?? 150;
  const intervalMs = options.intervalMs ?? 80;
  const now = options.now ?? (() => performance.now());
  const started = now();
  let lastDraw = -Infinity;
  let drawn = false;

  return {
    update(done) {
      const t = now();
      if (t - started < delayMs) return;
      if (done < total && t - lastDraw < intervalMs) return;
      lastDraw = t;
      drawn = true;
      // A pseudo-terminal may report 0 columns: assume 80 then.
      const columns = typeof stream.columns === "number" && stream.columns > 0 ? stream.columns : 80;
      stream.write(`\r${renderProgressLine(label, done, total, t - started, columns)}\u001b[K`);
    },
    clear() {
      if (!drawn) return;
      drawn = false;
      stream.write("\r\u001b[K");
    },
  };
}

/** The line without control characters; fits in `columns` − 1 so the terminal never wraps it. */
export function renderProgressLine(label: string, done: number, total: number, elapsedMs: number, columns: number): string {
  const clamped = Math.min(Math.max(done, 0), total);
  const share = total > 0 ? clamped / total : 1;
  const count = `${clamped.toLocaleString("en-US")}/${total.toLocaleString("en-US")} turns`;
  const tail = `  ${count}  ${Math.floor(share * 100)}%  ${(elapsedMs / 1000).toFixed(1)}s`;
  const room = columns - 1 - label.length - tail.length - 4;
  if (room < 10) return `${label}${tail}`.slice(0, Math.max(0, columns - 1));
  const width = Math.min(40, room);
  const full = Math.floor(share * width);
  return `${label}  [${"█".repeat(full)}${"░".repeat(width - full)}]${tail}`;
}
