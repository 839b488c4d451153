/**
 * The read_stored_result tool: the model reads what a context manager spilled (a tool result or
 * message too large for the window; the window's excerpt names its handle).
 *
 * | input                          | answer                                                              |
 * |--------------------------------|---------------------------------------------------------------------|
 * | `{ handle }`                   | the first page: `defaultLength` characters from offset 0            |
 * | `{ handle, offset, length? }`  | `length` (≤ `maxLength`) characters from `offset` (characters of the text, as the excerpt numbers them); a cut never splits a surrogate pair |
 * | `{ handle, pattern, offset? }` | the lines matching `pattern` (a regular expression, case-insensitive; text that is no valid expression is searched as plain text) from `offset` on: line number, offset, the line (around its match when long); at most `maxMatches`, then where to continue |
 * | a bad handle or argument       | an AmplifierError from `readStoredResult` (INVALID_ARGUMENT, SPILL/UNKNOWN_HANDLE); the tool answers its message with `isError: true`, so the model can correct the call |
 *
 * Every answer starts with one line saying what it is and how to go on.
 */
import type { SpilledResults, Tool, ToolDefinition, ToolResult } from "@amplifier-ts/contracts";
import { createError, isAmplifierError } from "@amplifier-ts/contracts";
import type { ReadStoredResultOptions } from "./read-options.js";

export const TOOL_NAME = "read_stored_result";
const MODULE = "read-stored-result";
/** The longest pattern accepted; the longest part of a line a pattern is tried on (bounds a bad expression's cost). */
const MAX_PATTERN = 1_000;
const MAX_SEARCHED_LINE = 20_000;

export interface ReadStoredResultInput {
  handle: string;
  offset?: number;
  length?: number;
  pattern?: string;
}

/** The tool's definition: what the model is told. */
export function readStoredResultDefinition(options: ReadStoredResultOptions): ToolDefinition {
  return {
    type: "function",
    function: {
      name: TOOL_NAME,
      description:
        "Read a result that was too large for the context window and was stored (its excerpt names the handle). " +
        `Give offset and length (characters, at most ${options.maxLength}) to read a page, or pattern (a regular expression or plain text, case-insensitive) to list the matching lines with their line numbers and offsets.`,
      parameters: {
        type: "object",
        properties: {
          handle: { type: "string", description: 'The handle the excerpt names, like "spill-0123456789abcdef01234567".' },
          offset: { type: "integer", minimum: 0, description: "Character offset to read (or search) from. Default 0." },
          length: { type: "integer", minimum: 1, maximum: options.maxLength, description: `Characters to read. Default ${options.defaultLength}.` },
          pattern: { type: "string", description: "Search instead of reading a page: the lines matching this regular expression (or plain text)." },
        },
        required: ["handle"],
        additionalProperties: false,
      },
    },
  };
}

/**
 * The answer to one call, or a typed error: INVALID_ARGUMENT naming the argument, or the
 * reader's own (SPILL/UNKNOWN_HANDLE). `reader` is the session's "spilled-results" capability.
 */
export async function readStoredResult(reader: SpilledResults, input: unknown, options: ReadStoredResultOptions): Promise<string> {
  const args = checkInput(input, options);
  const text = await reader.read(args.handle);
  const offset = args.offset ?? 0;
  if (offset > text.length) {
    throw createError("INVALID_ARGUMENT", `offset ${offset} is past the end of ${args.handle} (${text.length} characters)`, { module: MODULE, path: "offset", expected: `an offset from 0 to ${text.length}`, given: offset });
  }
  return args.pattern === undefined ? page(text, args.handle, offset, args.length ?? options.defaultLength) : search(text, args.handle, args.pattern, offset, options);
}

/** The Tool to mount: execute answers a bad call with its error's message and `isError: true`. */
export function createReadStoredResultTool(reader: () => SpilledResults | undefined, options: ReadStoredResultOptions): Tool {
  return {
    definition: readStoredResultDefinition(options),
    async execute(input: Record<string, unknown>): Promise<ToolResult> {
      const service = reader();
      if (service === undefined) return { output: `${TOOL_NAME}: this session has no stored results (its context module does not offer the "spilled-results" capability)`, isError: true };
      try {
        return { output: await readStoredResult(service, input, options) };
      } catch (error) {
        if (!isAmplifierError(error)) throw error;
        const expected = typeof error.details?.expected === "string" ? ` (expected ${error.details.expected})` : "";
        return { output: `${TOOL_NAME}: ${error.message}${expected}`, isError: true };
      }
    },
  };
}

// --- private ----------------------------------------------------------------------------------

function checkInput(input: unknown, options: ReadStoredResultOptions): ReadStoredResultInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw createError("INVALID_ARGUMENT", `${TOOL_NAME} takes an object of arguments`, { module: MODULE, path: "input", expected: "{ handle, offset?, length?, pattern? }", given: input });
  }
  const { handle, offset, length, pattern, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw createError("INVALID_ARGUMENT", `${TOOL_NAME} has no argument ${JSON.stringify(unknown[0])}`, { module: MODULE, path: unknown[0], expected: "handle, offset, length or pattern", given: rest[unknown[0]!] });
  }
  if (typeof handle !== "string" || handle.length === 0) {
    throw createError("INVALID_ARGUMENT", "handle must be the handle a stored result's excerpt names", { module: MODULE, path: "handle", expected: 'a string like "spill-0123456789abcdef01234567"', given: handle });
  }
  if (offset !== undefined && !(Number.isSafeInteger(offset) && (offset as number) >= 0)) {
    throw createError("INVALID_ARGUMENT", "offset must be a whole number of characters ≥ 0", { module: MODULE, path: "offset", expected: "an integer ≥ 0", given: offset });
  }
  if (length !== undefined && !(Number.isSafeInteger(length) && (length as number) >= 1 && (length as number) <= options.maxLength)) {
    throw createError("INVALID_ARGUMENT", `length must be a whole number of characters from 1 to ${options.maxLength}`, { module: MODULE, path: "length", expected: `an integer from 1 to ${options.maxLength}`, given: length });
  }
  if (pattern !== undefined && (typeof pattern !== "string" || pattern.length === 0 || pattern.length > MAX_PATTERN)) {
    throw createError("INVALID_ARGUMENT", `pattern must be 1-${MAX_PATTERN} characters of text or regular expression`, { module: MODULE, path: "pattern", expected: `a non-empty string of at most ${MAX_PATTERN} characters`, given: pattern });
  }
  if (pattern !== undefined && length !== undefined) {
    throw createError("INVALID_ARGUMENT", "give either pattern (search) or length (a page), not both", { module: MODULE, path: "length", expected: "no length with a pattern", given: length });
  }
  return { handle, ...(offset === undefined ? {} : { offset: offset as number }), ...(length === undefined ? {} : { length: length as number }), ...(pattern === undefined ? {} : { pattern: pattern as string }) };
}

function page(text: string, handle: string, offset: number, length: number): string {
  const start = safeCut(text, offset);
  const end = safeCut(text, Math.min(text.length, start + length));
  const next = end < text.length ? `; next page: {"handle":"${handle}","offset":${end}}` : "; this is the end";
  return `[${handle}: characters ${start}-${end} of ${text.length}${next}]\n${text.slice(start, end)}`;
}

function search(text: string, handle: string, pattern: string, offset: number, options: ReadStoredResultOptions): string {
  const regex = patternOf(pattern);
  const shown: string[] = [];
  let line = offset === 0 ? 1 : countLines(text, offset);
  let start = offset === 0 ? 0 : text.lastIndexOf("\n", offset - 1) + 1;
  let continueAt: number | undefined;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    const searched = text.slice(start, Math.min(end, start + MAX_SEARCHED_LINE));
    regex.lastIndex = 0;
    const match = regex.exec(searched);
    if (match) {
      if (shown.length === options.maxMatches) {
        continueAt = start;
        break;
      }
      shown.push(`line ${line} (offset ${start}): ${around(text, start, end, start + match.index, options.maxLineChars)}`);
    }
    if (newline < 0) break;
    start = newline + 1;
    line++;
  }
  const how = continueAt === undefined ? "no more after these" : `more from {"handle":"${handle}","pattern":${JSON.stringify(pattern)},"offset":${continueAt}}`;
  const head = `[${handle}: ${shown.length} line${shown.length === 1 ? "" : "s"} matching ${JSON.stringify(pattern)} from offset ${offset} (of ${text.length} characters); ${how}]`;
  return shown.length === 0 ? `${head}\nno line matches` : `${head}\n${shown.join("\n")}`;
}

/** A case-insensitive expression; text that is no valid expression is matched literally. */
function patternOf(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "iu");
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iu");
  }
}

/** The line [start, end), or `max` characters of it around `at`, marked where cut. */
function around(text: string, start: number, end: number, at: number, max: number): string {
  if (end - start <= max) return text.slice(start, end);
  const from = safeCut(text, Math.max(start, Math.min(at - Math.floor(max / 4), end - max)));
  const to = safeCut(text, Math.min(end, from + max));
  return `${from > start ? "…" : ""}${text.slice(from, to)}${to < end ? "…" : ""}`;
}

/** The 1-based number of the line holding `offset`. */
function countLines(text: string, offset: number): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/** `index`, moved back one when it would split a surrogate pair. */
function safeCut(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}
