/**
 * Where the time goes: summarises a V8 .cpuprofile (from `node --cpu-prof`) by self time and by
 * inclusive time per function, with file:line. Paths are shown relative to the repository when
 * they are inside it; the bench bundle maps back to sources through the function names (esbuild
 * keeps them).
 *
 *   node --expose-gc --cpu-prof --cpu-prof-dir=.cache/bench/prof .cache/bench/main.mjs --only agent-loop --quick
 *   npx esbuild test/bench/profile-summary.ts --bundle --platform=node --format=esm --outfile=.cache/bench/profile-summary.mjs
 *   node .cache/bench/profile-summary.mjs .cache/bench/prof/<file>.cpuprofile [top=30] [filter]
 * `filter` keeps only samples whose stack contains a function whose name includes it (e.g.
 * getMessagesForRequest), to see one call's breakdown.
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarize(profile: Profile, top = 30, filter?: string): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (f: CallFrame) => `${f.functionName || "(anonymous)"} ${sourceOf(f.url, f.lineNumber)}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const stack: CallFrame[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node) stack.push(node.callFrame);
    }
    if (filter && !stack.some((f) => f.functionName.includes(filter))) continue;
    total += dt;
    const leaf = stack[0];
    if (leaf) self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
    for (const key of new Set(stack.map(label))) inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
  }
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${v.toFixed(0).padStart(8)} ms ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join("\n");
  return `total ${total.toFixed(0)} ms${filter ? ` (samples under ${filter})` : ""}\n\nSELF\n${rows(self)}\n\nINCLUSIVE\n${rows(inclusive)}\n`;
}

/** esbuild writes `// path/to/file.ts` before each bundled file: a bundle line maps back to its source file. */
const bundleMarkers = new Map<string, { line: number; file: string }[]>();
function sourceOf(url: string, line: number): string {
  if (!url.endsWith(".mjs") || !url.includes(".cache/")) return `${shortUrl(url)}:${line + 1}`;
  let markers = bundleMarkers.get(url);
  if (!markers) {
    markers = [];
    try {
      const lines = readFileSync(url.startsWith("file://") ? new URL(url) : url, "utf8").split("\n");
      for (const [i, text] of lines.entries()) {
        const m = /^\/\/ ((?:[\w@.-]+\/)*[\w@.-]+\.(?:ts|js|mjs|json))$/.exec(text);
        if (m) markers.push({ line: i, file: m[1]! });
      }
    } catch {
      // not readable: fall back to the bundle position
    }
    bundleMarkers.set(url, markers);
  }
  let file: string | undefined;
  for (const m of markers) if (m.line <= line) file = m.file;
  return file ? `${file} (bundle:${line + 1})` : `${shortUrl(url)}:${line + 1}`;
}

function shortUrl(url: string): string {
  const cwd = `file://${process.cwd()}/`;
  if (url.startsWith(cwd)) return url.slice(cwd.length);
  if (url.startsWith(process.cwd())) return url.slice(process.cwd().length + 1);
  return url.replace(/^.*node_modules\//, "~/") || "(native)";
}

if (process.argv[1]?.includes("profile-summary")) {
  const [file, topText, filter] = process.argv.slice(2);
  if (!file) {
    console.error("usage: profile-summary <file.cpuprofile> [top] [filter]");
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  process.stdout.write(summarize(profile, Number(topText ?? 30), filter));
}
