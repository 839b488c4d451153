import type { CliWriter } from "./command.js";

/**
 * What the CLI prints comes largely from stored content — transcripts, session ids, module
 * descriptions, error messages quoting a config — which anyone who wrote a transcript controls. A
 * terminal obeys control characters in it: ESC[2J clears the screen, colour codes fake or hide
 * text, OSC sets the window title, a lone CR or backspace overwrites what was printed (issue 25
 * item 9). So every character in the table below is shown escaped, never sent as is:
 *
 * | characters                                   | why                                              | shown as   |
 * |----------------------------------------------|--------------------------------------------------|------------|
 * | C0 controls U+0000–U+001F except \n and \t   | ESC starts every sequence; BEL ends OSC; CR, BS overwrite | `\u001b` |
 * | DEL U+007F, C1 controls U+0080–U+009F         | U+009B is a one-byte CSI on some terminals       | `\u009b`   |
 * | bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | reorder what is shown, disguising text ("Trojan Source") | `\u202e` |
 *
 * `\uXXXX` is JSON's own escape, so JSON and JSONL output stays valid and means the same after
 * escaping (JSON.stringify already escapes C0, not C1 or bidi; it never leaves a raw control
 * after an odd run of backslashes). Newlines and tabs lay out the output and pass. Escaping is
 * idempotent: escaped text holds no control left to escape.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A writer that may be a terminal (process.stdout / stderr are; test collectors and pipes are not). */
export interface TerminalWriter extends CliWriter {
  isTTY?: boolean;
  columns?: number;
}

const RAW = new WeakMap<CliWriter, CliWriter>();

/**
 * `writer` with every chunk passed through terminalSafe — how runCli hands stdout and stderr to
 * a command, so no command can forget it. isTTY and columns read through to the real stream.
 */
export function terminalSafeWriter(writer: CliWriter): CliWriter {
  if (RAW.has(writer)) return writer;
  const target = writer as TerminalWriter;
  const safe: TerminalWriter = {
    write: (chunk: string) => target.write(terminalSafe(String(chunk))),
    get isTTY() {
      return target.isTTY;
    },
    get columns() {
      return target.columns;
    },
  };
  RAW.set(safe, writer);
  return safe;
}

/**
 * The stream under a terminalSafeWriter (or `writer` itself): for the one thing that draws on the
 * terminal by design — the replay's progress bar, which writes only its own \r and ESC[K — and to
 * tell the process's own stream from an embedder's.
 */
export function rawWriter(writer: CliWriter): CliWriter {
  return RAW.get(writer) ?? writer;
}
