import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import type { MemoryUnderTest } from "../../testing/memory-contract.js";

const run = promisify(execFile);

export const PG_URL = process.env.AMPLIFIER_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_URL = process.env.AMPLIFIER_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A fresh name for one test's schema or key prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomBytes(6).toString("hex")}`;
}

/** Bundles test/memory/fixtures/memory-writer.ts into .cache/ (drivers resolve from node_modules at run time). */
export async function bundleMemoryWriter(): Promise<string> {
  const outfile = fileURLToPath(new URL(`../../.cache/test-memory/memory-writer-${process.pid}.mjs`, import.meta.url));
  await build({ entryPoints: [fileURLToPath(new URL("./fixtures/memory-writer.ts", import.meta.url))], outfile, bundle: true, packages: "external", platform: "node", format: "esm", target: "node20", logLevel: "silent" });
  return outfile;
}

/** The contract suite's spawnWriter for a bundled writer: runs it to the end and checks it said "done". */
export function writerSpawner(script: string, kind: "postgres" | "redis", url: string) {
  return async (under: MemoryUnderTest, job: { sessionId: string; writer: number; count: number }): Promise<void> => {
    const { stdout } = await run(process.execPath, [script, kind, url, String(under.storage), job.sessionId, String(job.writer), String(job.count)]);
    if (!stdout.includes("done")) throw new Error(`writer ${job.writer} did not finish: ${stdout}`);
  };
}
