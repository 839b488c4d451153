import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAmplifierError } from "../../contracts/index.js";
import { createBlobStore, FileBlobStore } from "../../modules/store-blobs/index.js";
import { tempNameFor } from "../../modules/store-blobs/temp-file-owner.js";

/**
 * Opening a blob folder (FileBlobStore.connect) removes only temp files that are provably
 * abandoned — their writer's process is gone, or they were not modified for tempMaxAgeMs — never
 * another process's upload in flight (issue 25 item 5; repro r7). The second process is real: a
 * bundle of fixtures/blob-process.ts.
 */
const folders: string[] = [];
const children: ChildProcess[] = [];
let script = "";

beforeAll(async () => {
  script = fileURLToPath(new URL(`../../.cache/test-agent-stores/blob-process-${process.pid}.mjs`, import.meta.url));
  await build({ entryPoints: [fileURLToPath(new URL("./fixtures/blob-process.ts", import.meta.url))], outfile: script, bundle: true, packages: "external", platform: "node", format: "esm", target: "node20", logLevel: "silent" });
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), "amp-blob-temp-"));
  folders.push(path);
  return path;
}

/** The shard folder and record file name of `key` (as FileBlobStore lays them out), created. */
async function shardOf(root: string, key: string): Promise<{ shard: string; record: string }> {
  const hash = createHash("sha256").update(key, "utf8").digest("hex");
  const shard = join(root, hash.slice(0, 2));
  await mkdir(shard, { recursive: true });
  return { shard, record: `${hash}.blob` };
}

function start(args: string[]): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const lines: string[] = [];
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, lines, exited };
}

async function firstLine(lines: string[], exited: Promise<unknown>): Promise<string> {
  let done = false;
  void exited.then(() => (done = true));
  while (lines.length === 0) {
    if (done) throw new Error("the second process ended before it printed");
    await new Promise((r) => setTimeout(r, 10));
  }
  return lines[0]!;
}

async function connectOnce(root: string, options: { tempMaxAgeMs?: number } = {}): Promise<void> {
  const store = new FileBlobStore({ path: root, ...options });
  await store.connect();
  await store.disconnect();
}

/** Another name with the same owner fields except `field` (0 = pid space, 1 = boot). */
function withOwnerField(name: string, field: 0 | 1, value: string): string {
  const [head, owner] = name.split(".tmp-") as [string, string];
  const parts = owner.split("-");
  parts[field] = value;
  return `${head}.tmp-${parts.join("-")}`;
}

describe("FileBlobStore temp files: removed only when provably abandoned", () => {
  it("a live process's temp file survives another store's connect(); once that process is gone, the next connect() removes it", async () => {
    const root = await folder();
    const { shard, record } = await shardOf(root, "k");
    await writeFile(join(shard, "notes.txt"), "someone else's file");
    const holder = start(["hold", shard, record]);
    const temp = await firstLine(holder.lines, holder.exited);
    await connectOnce(root);
    expect((await readdir(shard)).sort()).toEqual([temp.slice(shard.length + 1), "notes.txt"].sort());
    holder.child.kill("SIGKILL");
    await holder.exited;
    await connectOnce(root);
    expect(await readdir(shard)).toEqual(["notes.txt"]);
  }, 60_000);

  it("uploads of 32 MiB in another process all succeed while this one opens the folder again and again", async () => {
    const root = await folder();
    const uploads = 3;
    const writer = start(["upload", root, String(uploads), "32"]);
    let running = true;
    void writer.exited.then(() => (running = false));
    let connects = 0;
    let sawTempFile = 0;
    while (running) {
      const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
      if (entries.some((e) => e.includes(".tmp-"))) sawTempFile++;
      await connectOnce(root);
      connects++;
    }
    expect(await writer.exited, writer.lines.join("\n")).toBe(0);
    expect(writer.lines).toEqual(Array.from({ length: uploads }, (_, i) => `ok ${i}`));
    // The race was run: connects happened while an upload's temp file was in the folder.
    expect(sawTempFile, `${connects} connects`).toBeGreaterThan(0);
    const reader = new FileBlobStore({ path: root });
    for (let i = 0; i < uploads; i++) expect((await reader.download(`big/${i}`)).data.byteLength).toBe(32 * 1024 * 1024);
    await reader.disconnect();
  }, 120_000);

  it("judged by the name's owner: this process not writing it, or an earlier boot → removed; another pid space or an unnamed owner → kept until tempMaxAgeMs", async () => {
    const root = await folder();
    const { shard, record } = await shardOf(root, "k");
    const mine = tempNameFor(record); // our pid, but no upload of this process writes it: an earlier process with our pid
    const earlierBoot = withOwnerField(tempNameFor(record), 1, "00000000");
    const otherSpace = withOwnerField(tempNameFor(record), 0, "00000000");
    const unnamed = `.${record}.tmp-4242-0123456789ab`;
    for (const name of [mine, earlierBoot, otherSpace, unnamed]) await writeFile(join(shard, name), "half a record");
    await connectOnce(root);
    // Where the system has no boot id (not Linux) the boot cannot tell, and the file waits for its age.
    const bootKnown = mine.split(".tmp-")[1]!.split("-")[1] !== "none";
    expect((await readdir(shard)).sort()).toEqual((bootKnown ? [otherSpace, unnamed] : [earlierBoot, otherSpace, unnamed]).sort());
    // Not modified for longer than tempMaxAgeMs: removed whoever wrote it.
    const twoSecondsAgo = new Date(Date.now() - 2000);
    for (const name of await readdir(shard)) await utimes(join(shard, name), twoSecondsAgo, twoSecondsAgo);
    await connectOnce(root, { tempMaxAgeMs: 60_000 });
    expect((await readdir(shard)).length).toBeGreaterThan(0);
    await connectOnce(root, { tempMaxAgeMs: 1000 });
    expect(await readdir(shard)).toEqual([]);
  });

  it("tempMaxAgeMs is a positive whole number of milliseconds (config and constructor), else INVALID_ARGUMENT naming it", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "60000"]) {
      const error = (() => {
        try {
          return new FileBlobStore({ tempMaxAgeMs: bad as number });
        } catch (e) {
          return e;
        }
      })();
      expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.path, String(bad)).toBe("tempMaxAgeMs");
    }
    expect(createBlobStore({ type: "file", tempMaxAgeMs: 3_600_000 })).toBeInstanceOf(FileBlobStore);
  });
});
