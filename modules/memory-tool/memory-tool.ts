import type { MemoryTreeStore, MemoryTreeTransaction, Tool, ToolDefinition, ToolResult } from "@amplifier-ts/contracts";
import { isAmplifierError } from "@amplifier-ts/contracts";
import { directoryListing, lineAt, linesOf, MAX_VIEW_LINES, numbered, occurrenceLines, SNIPPET_LINES } from "./memory-format.js";
import { parseMemoryCommand, type MemoryCommand } from "./memory-commands.js";
import { isWithin, parentOf, parseMemoryPath, quotePath, displayPath } from "./memory-paths.js";
import { ANTHROPIC_MEMORY_TOOL, memoryFunctionDefinition, type AnthropicMemoryToolDefinition } from "./memory-tool-definitions.js";
import type { MemoryLimits } from "./memory-tool-options.js";

export interface MemoryToolOptions {
  store: MemoryTreeStore;
  limits: MemoryLimits;
  /** The tree of the current call (one per agent by default: the running agent's id). */
  tree: () => string;
  /** The tool's name (`memory`, as Anthropic's definition names it). */
  name?: string;
}

/** A refusal inside a transaction: its text is the answer, nothing was written. */
class Refusal {
  constructor(readonly output: string) {}
}

/**
 * Anthropic's memory tool (`memory_20250818`) over a MemoryTreeStore: `execute(command)` answers
 * `{ output, isError? }` with the documented texts. Reads take no lock; every change runs in one
 * `transact` of the tree, so read-modify-writes (str_replace, insert) and the limits hold against
 * other writers of the same tree. Answers:
 *
 * | command | success | documented errors |
 * |---|---|---|
 * | view (directory) | `Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:` + `{size}\t{path}` lines | `The path {path} does not exist. Please provide a valid path.` |
 * | view (file) | `Here's the content of {path} with line numbers:` + numbered lines | the same; `File {path} exceeds maximum line limit of 999,999 lines.` |
 * | create | `File created successfully at: {path}` | `Error: File {path} already exists` |
 * | str_replace | `The memory file has been edited.` + a numbered snippet | `Error: The path {path} does not exist. Please provide a valid path.`; ``No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.``; ``No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {lines}. Please ensure it is unique`` |
 * | insert | `The file {path} has been edited.` | `Error: The path {path} does not exist`; ``Error: Invalid `insert_line` parameter: {n}. It should be within the range of lines of the file: [0, {n_lines}]`` |
 * | delete | `Successfully deleted {path}` | `Error: The path {path} does not exist` |
 * | rename | `Successfully renamed {old_path} to {new_path}` | `Error: The path {old_path} does not exist`; `Error: The destination {new_path} already exists` |
 *
 * Beyond the documented texts: invalid paths, limits (file size, file count, tree size), a busy
 * tree and an unsafe file-system entry are `Error: …` sentences naming the rule (README).
 */
export class MemoryTool implements Tool {
  readonly definition: ToolDefinition;
  /** What an Anthropic request sends for this tool: `{ type: "memory_20250818", name: "memory" }`. */
  readonly anthropicDefinition: AnthropicMemoryToolDefinition;
  readonly #store: MemoryTreeStore;
  readonly #limits: MemoryLimits;
  readonly #tree: () => string;

  constructor(options: MemoryToolOptions) {
    this.#store = options.store;
    this.#limits = options.limits;
    this.#tree = options.tree;
    const name = options.name ?? ANTHROPIC_MEMORY_TOOL.name;
    this.definition = memoryFunctionDefinition(name);
    this.anthropicDefinition = { ...ANTHROPIC_MEMORY_TOOL, name };
  }

  async execute(input: Record<string, unknown>): Promise<ToolResult> {
    const parsed = parseMemoryCommand(input);
    if (!parsed.ok) return error(parsed.error);
    try {
      return await this.#run(parsed.command);
    } catch (thrown) {
      if (thrown instanceof Refusal) return error(thrown.output);
      if (isAmplifierError(thrown) && (thrown.code === "MEMORY_TOOL/TREE_BUSY" || thrown.code === "MEMORY_TOOL/UNSAFE_PATH")) return error(String(thrown.details.toolOutput));
      throw thrown;
    }
  }

  async #run(command: MemoryCommand): Promise<ToolResult> {
    switch (command.command) {
      case "view":
        return this.#view(command.path, command.view_range);
      case "create":
        return this.#create(command.path, command.file_text);
      case "str_replace":
        return this.#strReplace(command.path, command.old_str, command.new_str);
      case "insert":
        return this.#insert(command.path, command.insert_line, command.insert_text);
      case "delete":
        return this.#delete(command.path);
      case "rename":
        return this.#rename(command.old_path, command.new_path);
    }
  }

  async #view(raw: string, range: [number, number] | undefined): Promise<ToolResult> {
    const path = this.#path(raw);
    const tree = this.#tree();
    const text = path.rel === "" ? undefined : await this.#store.read(tree, path.rel);
    if (text === undefined) {
      const files = await this.#store.list(tree, path.rel);
      if (path.rel !== "" && files.length === 0) return error(`The path ${path.display} does not exist. Please provide a valid path.`);
      if (range !== undefined) return error("Error: The `view_range` parameter is not allowed when `path` points to a directory.");
      return ok(directoryListing(path.rel, files));
    }
    const lines = linesOf(text);
    if (lines.length > MAX_VIEW_LINES) return error(`File ${path.display} exceeds maximum line limit of 999,999 lines.`);
    let [from, to] = [1, lines.length];
    if (range !== undefined) {
      const [start, end] = range;
      const shown = `[${start}, ${end}]`;
      if (start < 1 || start > Math.max(lines.length, 1)) return error(`Error: Invalid \`view_range\` parameter: ${shown}. Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines.length}]`);
      if (end !== -1 && end < start) return error(`Error: Invalid \`view_range\` parameter: ${shown}. Its second element \`${end}\` should be larger or equal than its first element \`${start}\``);
      if (end > lines.length) return error(`Error: Invalid \`view_range\` parameter: ${shown}. Its second element \`${end}\` should be smaller than the number of lines in the file: \`${lines.length}\``);
      [from, to] = [start, end === -1 ? lines.length : end];
    }
    const head = `Here's the content of ${path.display} with line numbers:`;
    const body = numbered(lines, from, to);
    const output = body === "" ? head : `${head}\n${body}`;
    if (output.length <= this.#limits.maxViewChars) return ok(output);
    // Cut at a line boundary, and say how to read on.
    const cut = output.lastIndexOf("\n", this.#limits.maxViewChars);
    const shownTo = from + output.slice(0, cut).split("\n").length - 2;
    return ok(`${output.slice(0, cut)}\n[Output cut at ${this.#limits.maxViewChars} characters: lines ${from}-${shownTo} of ${lines.length} shown. View the rest with view_range, e.g. [${shownTo + 1}, -1].]`);
  }

  async #create(raw: string, fileText: string): Promise<ToolResult> {
    if (raw.length > 1 && raw.endsWith("/")) return error(`Error: ${quotePath(raw)} names a directory; create takes a file path such as /memories/notes.md`);
    const path = this.#path(raw);
    this.#checkFileSize(path.display, fileText);
    return this.#store.transact(this.#tree(), async (tx) => {
      if (path.rel === "" || (await tx.read(path.rel)) !== undefined || (await tx.list(path.rel)).length > 0) throw new Refusal(`Error: File ${path.display} already exists`);
      await this.#checkParents(tx, path.rel);
      const files = await tx.list("");
      if (files.length >= this.#limits.maxFiles) {
        throw new Refusal(`Error: The memory directory already holds ${files.length} files, the most it may hold (${this.#limits.maxFiles}); delete or merge files before creating ${path.display}.`);
      }
      this.#checkTreeSize(files.reduce((sum, file) => sum + file.size, 0) + bytes(fileText));
      await tx.write(path.rel, fileText);
      return ok(`File created successfully at: ${path.display}`);
    });
  }

  async #strReplace(raw: string, oldStr: string, newStr: string): Promise<ToolResult> {
    const path = this.#path(raw);
    return this.#store.transact(this.#tree(), async (tx) => {
      const text = path.rel === "" ? undefined : await tx.read(path.rel);
      if (text === undefined) throw new Refusal(`Error: The path ${path.display} does not exist. Please provide a valid path.`);
      const lines = occurrenceLines(text, oldStr);
      if (lines.length === 0) throw new Refusal(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path.display}.`);
      if (lines.length > 1) throw new Refusal(`No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(", ")}. Please ensure it is unique`);
      const at = text.indexOf(oldStr);
      const edited = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
      await this.#writeChecked(tx, path.rel, path.display, text, edited);
      const editedLines = linesOf(edited);
      const first = lineAt(edited, at);
      const last = first + newStr.split("\n").length - 1;
      const from = Math.max(1, first - SNIPPET_LINES);
      const to = Math.min(editedLines.length, last + SNIPPET_LINES);
      const snippet = numbered(editedLines, from, to);
      return ok(`The memory file has been edited. Here's the result of running \`cat -n\` on a snippet of ${path.display}:${snippet === "" ? "" : `\n${snippet}`}`);
    });
  }

  async #insert(raw: string, line: number, insertText: string): Promise<ToolResult> {
    const path = this.#path(raw);
    return this.#store.transact(this.#tree(), async (tx) => {
      const text = path.rel === "" ? undefined : await tx.read(path.rel);
      if (text === undefined) throw new Refusal(`Error: The path ${path.display} does not exist`);
      const count = linesOf(text).length;
      if (line < 0 || line > count) throw new Refusal(`Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${count}]`);
      await this.#writeChecked(tx, path.rel, path.display, text, insertAt(text, line, insertText));
      return ok(`The file ${path.display} has been edited.`);
    });
  }

  async #delete(raw: string): Promise<ToolResult> {
    const path = this.#path(raw);
    if (path.rel === "") return error(`Error: ${path.display} itself cannot be deleted; delete the files and directories in it`);
    return this.#store.transact(this.#tree(), async (tx) => {
      if ((await tx.read(path.rel)) === undefined && (await tx.list(path.rel)).length === 0) throw new Refusal(`Error: The path ${path.display} does not exist`);
      await tx.remove(path.rel);
      return ok(`Successfully deleted ${path.display}`);
    });
  }

  async #rename(rawOld: string, rawNew: string): Promise<ToolResult> {
    const from = this.#path(rawOld);
    const to = this.#path(rawNew);
    if (from.rel === "") return error(`Error: ${from.display} itself cannot be renamed`);
    if (to.rel === "") return error(`Error: The destination ${to.display} already exists`);
    if (isWithin(to.rel, from.rel)) return error(`Error: ${from.display} cannot be moved into itself (${to.display})`);
    return this.#store.transact(this.#tree(), async (tx) => {
      const isFile = (await tx.read(from.rel)) !== undefined;
      const moving = isFile ? [] : await tx.list(from.rel);
      if (!isFile && moving.length === 0) throw new Refusal(`Error: The path ${from.display} does not exist`);
      if ((await tx.read(to.rel)) !== undefined || (await tx.list(to.rel)).length > 0) throw new Refusal(`Error: The destination ${to.display} already exists`);
      await this.#checkParents(tx, to.rel);
      // Files moved along must stay within the limits on paths.
      for (const file of moving) {
        const moved = to.rel + file.path.slice(from.rel.length);
        const checked = parseMemoryPath(displayPath(moved), this.#limits);
        if (!checked.ok) throw new Refusal(`Error: Renaming ${from.display} would move ${displayPath(file.path)} to ${displayPath(moved)}, which is not a valid memory path: ${checked.reason}`);
      }
      await tx.move(from.rel, to.rel);
      return ok(`Successfully renamed ${from.display} to ${to.display}`);
    });
  }

  /** A valid path, or a Refusal naming the rule it breaks. */
  #path(raw: string): { rel: string; display: string } {
    const parsed = parseMemoryPath(raw, this.#limits);
    if (!parsed.ok) throw new Refusal(`Error: The path ${quotePath(raw)} is not a valid memory path: ${parsed.reason}.`);
    return parsed;
  }

  /** No ancestor of `rel` may be a file: a file cannot hold other files. */
  async #checkParents(tx: MemoryTreeTransaction, rel: string): Promise<void> {
    for (let dir = parentOf(rel); dir !== ""; dir = parentOf(dir)) {
      if ((await tx.read(dir)) !== undefined) throw new Refusal(`Error: ${displayPath(dir)} is a file, so ${displayPath(rel)} cannot be placed under it`);
    }
  }

  async #writeChecked(tx: MemoryTreeTransaction, rel: string, display: string, before: string, after: string): Promise<void> {
    this.#checkFileSize(display, after);
    const files = await tx.list("");
    this.#checkTreeSize(files.reduce((sum, file) => sum + file.size, 0) - bytes(before) + bytes(after));
    await tx.write(rel, after);
  }

  #checkFileSize(display: string, text: string): void {
    const size = bytes(text);
    if (size > this.#limits.maxFileBytes) {
      throw new Refusal(`Error: ${display} would be ${size} bytes; a memory file holds at most ${this.#limits.maxFileBytes} bytes. Keep the note shorter or split it into several files.`);
    }
  }

  #checkTreeSize(total: number): void {
    if (total > this.#limits.maxTreeBytes) {
      throw new Refusal(`Error: The memory directory would hold ${total} bytes, more than its limit of ${this.#limits.maxTreeBytes}; delete or shorten files first.`);
    }
  }
}

/**
 * `text` with `insertText` placed after line `line` (0: before the first line). The inserted text
 * becomes whole lines: a newline is added after it when it lacks one and something follows.
 */
export function insertAt(text: string, line: number, insertText: string): string {
  const block = insertText.endsWith("\n") ? insertText : `${insertText}\n`;
  if (line === 0) return text === "" ? insertText : block + text;
  let offset = -1;
  for (let seen = 0; seen < line; seen++) {
    offset = text.indexOf("\n", offset + 1);
    if (offset < 0) break;
  }
  // The last line has no newline: the insert starts a new line after it.
  if (offset < 0) return `${text}\n${insertText}`;
  return text.slice(0, offset + 1) + (offset + 1 === text.length ? insertText : block) + text.slice(offset + 1);
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function ok(output: string): ToolResult {
  return { output };
}

function error(output: string): ToolResult {
  return { output, isError: true };
}
