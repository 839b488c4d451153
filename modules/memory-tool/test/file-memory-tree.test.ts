import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileMemoryTree, MemoryTool, MEMORY_LIMIT_DEFAULTS } from "../index.js";

/**
 * What only the file store can meet: links and special files planted in a tree, lock files left
 * by a process that died or held by a live one, temp files of a writer that crashed.
 */
describe("FileMemoryTree", () => {
  let dir: string;
  let tool: MemoryTool;
  const trees = () => join(dir, "trees");
  const make = (lockTimeoutMs = 10_000) => new MemoryTool({ store: new FileMemoryTree({ path: trees(), lockTimeoutMs }), limits: { ...MEMORY_LIMIT_DEFAULTS, lockTimeoutMs }, tree: () => "agent" });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "amp-memory-file-"));
    await mkdir(join(dir, "secret"));
    await writeFile(join(dir, "secret", "passwd"), "root:x:0:0\n");
    tool = make();
    await tool.execute({ command: "create", path: "/memories/keep.md", file_text: "keep\n" });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("never follows a symbolic link planted in the tree: reads, writes, lists and deletes through it are refused", async () => {
    await symlink(join(dir, "secret"), join(trees(), "agent", "escape"));
    await symlink(join(dir, "secret", "passwd"), join(trees(), "agent", "passwd.md"));
    const answers = [
      await tool.execute({ command: "view", path: "/memories/escape/passwd" }),
      await tool.execute({ command: "view", path: "/memories/passwd.md" }),
      await tool.execute({ command: "create", path: "/memories/escape/new.md", file_text: "pwned" }),
      await tool.execute({ command: "str_replace", path: "/memories/passwd.md", old_str: "root", new_str: "pwned" }),
      await tool.execute({ command: "insert", path: "/memories/escape/passwd", insert_line: 0, insert_text: "pwned" }),
      await tool.execute({ command: "delete", path: "/memories/escape/passwd" }),
      await tool.execute({ command: "rename", old_path: "/memories/escape/passwd", new_path: "/memories/stolen.md" }),
    ];
    for (const answer of answers) expect(answer.isError, answer.output).toBe(true);
    expect(answers[0]!.output).toBe("Error: /memories/escape is a symbolic link in the memory store; the memory tool never follows links or opens special files");
    expect(answers.map((a) => a.output).join("\n")).not.toContain(dir);
    // The listing shows neither link, and nothing outside changed.
    expect((await tool.execute({ command: "view", path: "/memories" })).output).not.toMatch(/escape|passwd/);
    expect(await readdir(join(dir, "secret"))).toEqual(["passwd"]);
    expect(await readFile(join(dir, "secret", "passwd"), "utf8")).toBe("root:x:0:0\n");
  });

  it("takes over the lock of a process that died, and refuses nothing", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const pid = Number(dead.stdout);
    await writeFile(join(trees(), ".agent.lock"), JSON.stringify({ pid, host: (await import("node:os")).hostname(), token: "old", createdAt: "2026-01-01T00:00:00Z" }));
    expect(await tool.execute({ command: "create", path: "/memories/after.md", file_text: "x" })).toEqual({ output: "File created successfully at: /memories/after.md" });
    expect((await readdir(trees())).filter((name) => name.includes("lock"))).toEqual([]);
  });

  it("waits for a live holder, then tells the model the tree is busy (MEMORY_TOOL/TREE_BUSY) and writes nothing", async () => {
    await writeFile(join(trees(), ".agent.lock"), JSON.stringify({ pid: 1, host: "another-host", token: "theirs", createdAt: "2026-01-01T00:00:00Z" }));
    const busy = make(100);
    const answer = await busy.execute({ command: "create", path: "/memories/blocked.md", file_text: "x" });
    expect(answer).toEqual({ isError: true, output: expect.stringMatching(/^Error: the memory directory is being changed by process 1 on another-host and stayed locked for 100 ms; try the command again$/) });
    expect((await busy.execute({ command: "view", path: "/memories/blocked.md" })).isError).toBe(true);
    // Reads take no lock.
    expect((await busy.execute({ command: "view", path: "/memories/keep.md" })).output).toContain("keep");
  });

  it("removes the temp files of a writer that crashed, at the next change of the next store opened on the folder", async () => {
    tool = make();
    await writeFile(join(trees(), "agent", ".keep.md.tmp-999999-abcdef"), "half");
    await mkdir(join(trees(), "agent", ".trash-0123"));
    await tool.execute({ command: "insert", path: "/memories/keep.md", insert_line: 1, insert_text: "more" });
    expect((await readdir(join(trees(), "agent"))).sort()).toEqual(["keep.md"]);
    expect(await readFile(join(trees(), "agent", "keep.md"), "utf8")).toBe("keep\nmore");
  });
});
