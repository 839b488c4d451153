import { terminalSafe } from "./terminal-safe.js";

/**
 * Plain-text tables: columns padded to their widest cell, two spaces apart, no trailing blanks.
 * Plain so that they read the same in a terminal, a CI log and a test assertion.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return formatRows([headers, ...rows]);
}

/** The same layout without a header row (help screens). */
export function formatRows(given: readonly (readonly string[])[]): string {
  // Cells hold stored content: escaped before measuring, so the columns line up with what is shown.
  const rows = given.map((row) => row.map(terminalSafe));
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(0, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return rows.map((row) => `${line(row)}\n`).join("");
}
