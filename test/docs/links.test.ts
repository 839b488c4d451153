import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseMarkdown, ROOT, shippedDocs } from "./markdown.js";

/**
 * Every relative link of the shipped docs (markdown.ts: README.md, contracts/*.md, the packages'
 * READMEs, the third-party example's README) points at a file or folder of the repository, and a
 * `#anchor` into a markdown file at one of its headings (GitHub's slugs, headings outside code). Links with a scheme
 * (https:, mailto:) are not fetched. Code — fenced blocks and inline spans — is not prose: a
 * `[x](y)` there is not a link.
 */

interface Link {
  doc: string;
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
export function linksOf(doc: string, text: string): Link[] {
  const prose = parseMarkdown(text).prose.join("\n");
  const lineAt = (index: number): number => prose.slice(0, index).split("\n").length;
  const links: Link[] = [];
  for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    links.push({ doc, line: lineAt(match.index), target: match[1]!.replace(/^<|>$/g, "") });
  }
  for (const match of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) links.push({ doc, line: lineAt(match.index), target: match[1]! });
  return links;
}

/**
 * GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 …
 * — and the HTML anchors a generated file sets (`<a id="scenario-replay"></a>`, outside code).
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of parseMarkdown(text).outside) {
    for (const html of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(html[1]!.toLowerCase());
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const plain = heading[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*_~]/g, (c) => (c === "_" ? "_" : ""));
    const slug = plain.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a link is dead, or undefined when it is alive. `readDoc` reads a doc (by path from ROOT) for its anchors. */
export function deadReason(link: Link, docText: (path: string) => string | undefined): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined; // https:, mailto: … not fetched here
  const [rawPath, anchor] = splitOnce(link.target, "#");
  const path = rawPath === "" ? link.doc : relative(ROOT, join(ROOT, dirname(link.doc), decodeURIComponent(rawPath))).replaceAll("\\", "/");
  if (path.startsWith("..")) return `${link.target} leaves the repository`;
  const text = docText(path);
  if (text === undefined) return `${link.target}: no such file or folder (${path})`;
  if (anchor === undefined || anchor === "" || !path.endsWith(".md")) return undefined;
  return anchorsOf(text).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `${link.target}: ${path} has no heading #${anchor}`;
}

/** A repository file's text ("" for a folder), undefined when it does not exist. */
function repositoryText(path: string): string | undefined {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

describe("the links of the shipped docs", () => {
  it("are found: the README links the contracts", () => {
    const targets = linksOf("README.md", readFileSync(join(ROOT, "README.md"), "utf8")).map((link) => link.target);
    expect(targets).toEqual(expect.arrayContaining(["contracts/MODULES.md", "contracts/HOOKS.md", "contracts/CONTEXT.md"]));
  });

  it("every relative link points at an existing file, and every anchor at a heading", () => {
    const links = shippedDocs().flatMap((doc) => linksOf(doc, readFileSync(join(ROOT, doc), "utf8")));
    expect(links.length).toBeGreaterThan(30);
    const dead = links.flatMap((link) => {
      const reason = deadReason(link, repositoryText);
      return reason === undefined ? [] : [`${link.doc}:${link.line} ${reason}`];
    });
    expect(dead).toEqual([]);
  });

  it("the check bites: a missing file, a missing heading and a link out of the repository are reported; code is not prose", () => {
    const files: Record<string, string> = {
      "docs/GUIDE.md": "# Guide\n\n## Set up `createSession()`\n\n## Set up `createSession()`\n\n<a id=\"table-1\"></a>\n\n```html\n<a id=\"in-code\"></a>\n```\n",
      "docs/SPEC.md": [
        "See [the guide](GUIDE.md#set-up-createsession), [again](GUIDE.md#set-up-createsession-1),",
        "[the site](https://example.com/missing) and [this](#spec).",
        "[gone](GONE.md) and [no heading](GUIDE.md#install) and [out](../../elsewhere.md)",
        "[a table](GUIDE.md#table-1) but [code](GUIDE.md#in-code)",
        "`[not a link](NOPE.md)`",
        "```md",
        "[nor this](NOPE.md)",
        "```",
        "[ref]: ./MISSING.md",
        "# Spec",
      ].join("\n"),
    };
    const links = linksOf("docs/SPEC.md", files["docs/SPEC.md"]!);
    const dead = links.flatMap((link) => {
      const reason = deadReason(link, (path) => (path === "docs" ? "" : files[path]));
      return reason === undefined ? [] : [`${link.line} ${reason}`];
    });
    expect(dead).toEqual([
      "3 GONE.md: no such file or folder (docs/GONE.md)",
      "3 GUIDE.md#install: docs/GUIDE.md has no heading #install",
      "3 ../../elsewhere.md leaves the repository",
      "4 GUIDE.md#in-code: docs/GUIDE.md has no heading #in-code",
      "9 ./MISSING.md: no such file or folder (docs/MISSING.md)",
    ]);
  });
});
