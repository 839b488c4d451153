/**
 * Issue 25 item 15: a kill -9 during an attachment write (context-persistent's calibration) left
 * `.<id>.calibration.json.tmp-<pid>-<hex>` in the session folder forever. Opening the session (its
 * writer) now removes the attachment temp files that are provably abandoned — the writing pid is
 * gone, or the file is older than ABANDONED_TEMP_AGE_MS — and keeps any other.
 */
import { spawn } from "node:child_process";
import { readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ABANDONED_TEMP_AGE_MS } from "../../modules/stores/atomic-file.js";
import { JsonlStore } from "../../modules/stores/jsonl-store.js";
import { startWriter, tempDirAndBundledChild } from "./support.js";

const temps = async (dir: string) => (await readdir(dir)).filter((name) => name.includes(".tmp-")).sort();

describe("JsonlStore: attachment temp files a kill -9 left", () => {
  const temp = tempDirAndBundledChild("attachment-temps", new URL("./fixtures/attachment-writer.ts", import.meta.url));

  it("the killed writer's temp file goes when the session is opened again; live writers' and other sessions' stay", async () => {
    const dir = join(temp.dir, "sessions");
    const writer = startWriter(temp.script, [dir, "s1"]);
    const stuck = (await writer.waitFor(/^stuck /, 60_000)).slice("stuck ".length);
    writer.child.kill("SIGKILL");
    expect((await writer.exited).signal, writer.stderr()).toBe("SIGKILL");
    expect(await temps(dir)).toEqual([stuck]); // what the bug left behind

    // A process that is alive (a sleeping child) "writing" another attachment of s1, the same
    // pid's file untouched for longer than the stated age, and another session's dead-pid leftover.
    const alive = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "ignore" });
    try {
      const liveTemp = `.s1.counts.json.tmp-${alive.pid}-0123456789ab`;
      const staleTemp = `.s1.windows-0.json.tmp-${alive.pid}-abcdefabcdef`;
      const otherSession = `.s2.calibration.json.tmp-${writer.child.pid}-0123456789ab`;
      for (const name of [liveTemp, staleTemp, otherSession]) await writeFile(join(dir, name), "{}");
      const hoursAgo = (Date.now() - ABANDONED_TEMP_AGE_MS - 60_000) / 1000;
      await utimes(join(dir, staleTemp), hoursAgo, hoursAgo);

      const store = new JsonlStore({ storagePath: dir, fsync: "never" });
      try {
        await store.open("s1");
        expect(await temps(dir)).toEqual([liveTemp, otherSession].sort());
        // The session and its attachments work as before.
        await store.writeAttachment("s1", "calibration", '{"v":2}\n');
        expect(await store.readAttachment("s1", "calibration")).toBe('{"v":2}\n');
      } finally {
        await store.close();
      }
    } finally {
      alive.kill("SIGKILL");
    }
  });

  it("a reader (readOnly) deletes nothing", async () => {
    const dir = join(temp.dir, "reader");
    const writer = new JsonlStore({ storagePath: dir, fsync: "never" });
    await writer.append("r1", { role: "user", content: "x", metadata: { id: "m1" } });
    await writer.close();
    const leftover = ".r1.calibration.json.tmp-999999999-0123456789ab"; // no such pid
    await writeFile(join(dir, leftover), "{}");
    const reader = new JsonlStore({ storagePath: dir, readOnly: true });
    try {
      expect((await reader.read("r1")).length).toBe(1);
      expect(await temps(dir)).toEqual([leftover]);
    } finally {
      await reader.close();
    }
  });
});
