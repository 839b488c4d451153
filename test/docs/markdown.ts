/**
 * The shipped documentation and the two things the docs tests read from it: fenced code blocks
 * (code-blocks.test.ts) and relative links (links.test.ts). One reader of fences for both, so a
 * link inside a code block is never taken for a link.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The docs a user reads, in the repository and in the packages: the README, the contracts, every
 * workspace package's README and the third-party example's README. Paths relative to ROOT, sorted.
 */
export function shippedDocs(): string[] {
  const docs = ["README.md", ...markdownIn("contracts").map((name) => `contracts/${name}`)];
  for (const home of ["modules", "hooks"]) {
    if (!existsSync(join(ROOT, home))) continue;
    for (const entry of readdirSync(join(ROOT, home), { withFileTypes: true })) {
      if (entry.isDirectory() && existsSync(join(ROOT, home, entry.name, "README.md"))) docs.push(`${home}/${entry.name}/README.md`);
    }
  }
  for (const dir of ["core", "testing", "examples/third-party-plugin"]) if (existsSync(join(ROOT, dir, "README.md"))) docs.push(`${dir}/README.md`);
  return docs.sort();
}

export interface Fence {
  /** The info string's words: ["ts"], ["ts", "signatures"], ["json"], [] … */
  info: string[];
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The line directly above the opening fence, trimmed: where a `<!-- run -->` mark sits (doc-programs.ts). */
  above: string;
}

export interface ParsedDoc {
  fences: Fence[];
  /** The text outside fenced code, line for line (fenced lines are blank), inline code spans blanked. */
  prose: string[];
  /** The text outside fenced code, line for line (fenced lines are blank), inline code kept: headings. */
  outside: string[];
}

/** CommonMark fences: ``` or ~~~ (3 or more), closed by the same character at least as long; indented up to 3 spaces. */
export function parseMarkdown(text: string): ParsedDoc {
  const lines = text.split("\n");
  const fences: Fence[] = [];
  const prose: string[] = [];
  const outside: string[] = [];
  let open: { marker: string; info: string[]; line: number; above: string; body: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      prose.push("");
      outside.push("");
      if (fence && fence[1]![0] === open.marker[0] && fence[1]!.length >= open.marker.length && fence[2]!.trim() === "") {
        fences.push({ info: open.info, line: open.line, code: open.body.join("\n") + "\n", above: open.above });
        open = undefined;
      } else {
        open.body.push(line);
      }
      return;
    }
    if (fence && !(fence[1]![0] === "`" && fence[2]!.includes("`"))) {
      open = { marker: fence[1]!, info: fence[2]!.trim().split(/\s+/).filter(Boolean), line: index + 1, above: (lines[index - 1] ?? "").trim(), body: [] };
      prose.push("");
      outside.push("");
      return;
    }
    outside.push(line);
    prose.push(line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => " ".repeat(span.length)));
  });
  if (open) throw new Error(`a fence opened at line ${open.line} is never closed`);
  return { fences, prose, outside };
}

export function readDoc(doc: string): ParsedDoc {
  return parseMarkdown(readFileSync(join(ROOT, doc), "utf8"));
}

function markdownIn(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).filter((name) => name.endsWith(".md"));
}
