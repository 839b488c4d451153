/**
 * Measurements that need a fresh process (resume: cold caches, tiktoken not loaded yet; memory:
 * a heap with nothing else in it) run the bundled bench again with `--child <name> <args…>`.
 * The child prints one line `BENCH_RESULT <json>` on stdout.
 */
import { spawn } from "node:child_process";

const MARKER = "BENCH_RESULT ";

export async function runChild<T>(entry: string, args: string[], options: { heapMb?: number } = {}): Promise<T> {
  return runNode<T>(["--expose-gc", ...(options.heapMb ? [`--max-old-space-size=${options.heapMb}`] : []), entry, "--child", ...args], args);
}

/** Runs `node <nodeArgs…>` (a script of its own: it prints the BENCH_RESULT line itself); `label` names it in errors. */
export async function runNode<T>(nodeArgs: string[], label: string[]): Promise<T> {
  return await new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = stdout.split("\n").reverse().find((l) => l.startsWith(MARKER));
      if (code === 0 && line) {
        resolve(JSON.parse(line.slice(MARKER.length)) as T);
        return;
      }
      reject(new Error(`child ${label.join(" ")} exited with ${code}\n${stderr.trim().slice(-4000)}`));
    });
  });
}

export function reportToParent(value: unknown): void {
  process.stdout.write(`${MARKER}${JSON.stringify(value)}\n`);
}
