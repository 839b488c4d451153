import { describe, expect, it } from "vitest";
import { WriteQueue } from "../write-queue.js";

/** A queue whose commits are recorded and released by hand, to see what was batched with what. */
function recordingQueue(coalesce: boolean, maxBatchWeight = 1_000) {
  const commits: string[][] = [];
  const gates: { release(): void; fail(e: Error): void }[] = [];
  const queue = new WriteQueue<string>({
    coalesce,
    maxBatchWeight,
    weight: (r) => r.length,
    commit: (records) =>
      new Promise<void>((resolve, reject) => {
        commits.push(records);
        gates.push({ release: resolve, fail: reject });
      }),
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return { queue, commits, gates, settle };
}

describe("WriteQueue", () => {
  it("coalesce: appends issued while a commit is in flight share the next commit (group commit)", async () => {
    const { queue, commits, gates, settle } = recordingQueue(true);
    const first = queue.append(["a"]);
    await settle();
    const rest = [queue.append(["b"]), queue.append(["c", "d"]), queue.append(["e"])];
    await settle();
    expect(commits).toEqual([["a"]]);
    gates[0]!.release();
    await first;
    await settle();
    expect(commits).toEqual([["a"], ["b", "c", "d", "e"]]);
    let resolved = 0;
    for (const p of rest) void p.then(() => resolved++);
    await settle();
    expect(resolved, "nobody is acknowledged before their batch is committed").toBe(0);
    gates[1]!.release();
    await Promise.all(rest);
  });

  it("without coalesce each append call is its own commit, in call order", async () => {
    const { queue, commits, gates, settle } = recordingQueue(false);
    const all = [queue.append(["a"]), queue.append(["b", "c"]), queue.append(["d"])];
    for (let i = 0; i < 3; i++) {
      await settle();
      gates[i]!.release();
    }
    await Promise.all(all);
    expect(commits).toEqual([["a"], ["b", "c"], ["d"]]);
  });

  it("a batch stops at maxBatchWeight; a single heavier append still goes, alone", async () => {
    const { queue, commits, gates, settle } = recordingQueue(true, 4);
    const all = [queue.append(["x"]), queue.append(["aa"]), queue.append(["bb"]), queue.append(["cc"]), queue.append(["huge-record"]), queue.append(["d"])];
    for (let i = 0; i < 5; i++) {
      await settle();
      gates[i]?.release();
    }
    await Promise.all(all);
    expect(commits).toEqual([["x"], ["aa", "bb"], ["cc"], ["huge-record"], ["d"]]);
  });

  it("tasks are barriers: appends on either side of one are never batched together", async () => {
    const { queue, commits, gates, settle } = recordingQueue(true);
    const order: string[] = [];
    const first = queue.append(["a"]);
    const b = queue.append(["b"]);
    const task = queue.run(async () => order.push(`task saw ${commits.length} commits`));
    const c = queue.append(["c"]);
    for (let i = 0; i < 3; i++) {
      await settle();
      gates[i]?.release();
    }
    await Promise.all([first, b, task, c]);
    expect(commits).toEqual([["a"], ["b"], ["c"]]);
    expect(order).toEqual(["task saw 2 commits"]);
  });

  it("a failed commit rejects every append of its batch; the queue goes on", async () => {
    const { queue, commits, gates, settle } = recordingQueue(true);
    const first = queue.append(["a"]);
    await settle();
    const doomed = [queue.append(["b"]), queue.append(["c"])];
    gates[0]!.release();
    await first;
    await settle();
    gates[1]!.fail(new Error("disk on fire"));
    for (const p of doomed) await expect(p).rejects.toThrow("disk on fire");
    const after = queue.append(["d"]);
    await settle();
    gates[2]!.release();
    await after;
    expect(commits).toEqual([["a"], ["b", "c"], ["d"]]);
  });

  it("poison rejects what is queued and everything after, with the poison's error", async () => {
    const { queue, gates, settle } = recordingQueue(true);
    const blocker = queue.run(async () => {
      queue.poison(new Error("closed"));
    });
    const queued = queue.append(["a"]);
    await blocker;
    await expect(queued).rejects.toThrow("closed");
    await expect(queue.append(["b"])).rejects.toThrow("closed");
    await expect(queue.run(async () => 1)).rejects.toThrow("closed");
    await settle();
    expect(gates).toHaveLength(0);
  });
});
