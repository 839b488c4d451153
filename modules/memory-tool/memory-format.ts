/**
 * The tool's answers in the formats Anthropic documents for `memory_20250818` (and its text
 * editor tool, whose patterns the memory tool shares): numbered lines are 6 characters wide,
 * right-aligned, then a tab; directory listings are `{size}\t{path}` lines, sizes human-readable.
 */
import type { MemoryTreeFile } from "@amplifier-ts/contracts";
import { displayPath } from "./memory-paths.js";

/** Files with more lines cannot be viewed (the documented limit). */
export const MAX_VIEW_LINES = 999_999;
/** Lines shown either side of an edit in str_replace's snippet. */
export const SNIPPET_LINES = 4;

/**
 * A file's lines: a final newline ends the last line rather than starting an empty one, so
 * "a\nb\n" and "a\nb" both have 2 lines and "" has none.
 */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** `     1\tfirst line` … for lines[from-1 .. to-1] (1-based, inclusive). */
export function numbered(lines: readonly string[], from: number, to: number): string {
  const out: string[] = [];
  for (let line = from; line <= to; line++) out.push(`${String(line).padStart(6, " ")}\t${lines[line - 1]}`);
  return out.join("\n");
}

/** 512B, 1.5K, 5.5K, 1.2M, 3.0G — as the documented listings show them. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const units = ["K", "M", "G", "T"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)}${units[unit]}`;
}

/**
 * The documented directory view: the directory with its total size, then every file and
 * directory up to 2 levels below it in path order, hidden items and node_modules left out (a
 * directory's size counts all it holds, at any depth). Directories end with `/`.
 */
export function directoryListing(dir: string, files: readonly MemoryTreeFile[]): string {
  const sizes = new Map<string, { size: number; isDir: boolean }>();
  let total = 0;
  const base = dir === "" ? 0 : dir.split("/").length;
  for (const file of files) {
    const below = file.path.split("/").slice(base);
    if (below.some((segment) => segment.startsWith(".") || segment === "node_modules")) continue;
    total += file.size;
    for (let depth = 1; depth <= Math.min(2, below.length); depth++) {
      const isDir = depth < below.length;
      const key = [...file.path.split("/").slice(0, base), ...below.slice(0, depth)].join("/");
      const entry = sizes.get(key) ?? { size: 0, isDir };
      entry.size += file.size;
      sizes.set(key, entry);
    }
  }
  const path = displayPath(dir);
  const lines = [`Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`, `${humanSize(total)}\t${path}`];
  for (const key of [...sizes.keys()].sort(byCodePoint)) {
    const entry = sizes.get(key)!;
    lines.push(`${humanSize(entry.size)}\t${displayPath(key)}${entry.isDir ? "/" : ""}`);
  }
  return lines.join("\n");
}

/** Code point order (a plain sort compares UTF-16 units, which misplaces characters past U+FFFF). */
export function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** 1-based line numbers of every start of `needle` in `text` (overlapping starts count). */
export function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) lines.push(lineAt(text, at));
  return lines;
}

/** The 1-based line of the character at `offset`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}
