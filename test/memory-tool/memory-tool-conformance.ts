import type { MemoryTreeStore } from "@amplifier-ts/contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryTool, MEMORY_LIMIT_DEFAULTS, type MemoryLimits } from "../../modules/memory-tool/index.js";

export interface MemoryBackend {
  store: MemoryTreeStore;
  /** What lies outside the trees (the file store's folder), to prove a hostile path wrote nothing there. */
  outside?: () => Promise<string[]>;
  cleanup: () => Promise<void>;
}

/**
 * The memory tool's conformance suite, written from Anthropic's documentation of
 * `memory_20250818` (the command set, its answers and its errors; the security section: every
 * path under /memories, traversal refused in every spelling), run on each MemoryTreeStore.
 */
export function describeMemoryToolConformance(name: string, backend: () => Promise<MemoryBackend>): void {
  describe(`memory tool on ${name}`, () => {
    let made: MemoryBackend;
    let tool: MemoryTool;
    const limits = (overrides: Partial<MemoryLimits> = {}): MemoryLimits => ({ ...MEMORY_LIMIT_DEFAULTS, ...overrides });
    const run = (input: Record<string, unknown>) => tool.execute(input);
    const text = async (path: string) => (await run({ command: "view", path })).output;
    const HEADER = (path: string) => `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`;

    beforeEach(async () => {
      made = await backend();
      tool = new MemoryTool({ store: made.store, limits: limits(), tree: () => "agent-a" });
    });
    afterEach(async () => {
      await made.store.disconnect();
      await made.cleanup();
    });

    describe("view", () => {
      it("shows an empty /memories as a directory of 0 bytes (with or without the trailing slash)", async () => {
        expect(await run({ command: "view", path: "/memories" })).toEqual({ output: `${HEADER("/memories")}\n0B\t/memories` });
        expect(await run({ command: "view", path: "/memories/" })).toEqual({ output: `${HEADER("/memories")}\n0B\t/memories` });
      });

      it("shows a file with 6-wide right-aligned line numbers and a tab", async () => {
        await run({ command: "create", path: "/memories/notes.txt", file_text: "Hello World\nThis is line two\n" });
        expect(await run({ command: "view", path: "/memories/notes.txt" })).toEqual({ output: "Here's the content of /memories/notes.txt with line numbers:\n     1\tHello World\n     2\tThis is line two" });
      });

      it("shows a range of lines; -1 ends at the last line; a range outside the file is an error", async () => {
        await run({ command: "create", path: "/memories/n.md", file_text: "one\ntwo\nthree\nfour" });
        const head = "Here's the content of /memories/n.md with line numbers:";
        expect((await run({ command: "view", path: "/memories/n.md", view_range: [2, 3] })).output).toBe(`${head}\n     2\ttwo\n     3\tthree`);
        expect((await run({ command: "view", path: "/memories/n.md", view_range: [3, -1] })).output).toBe(`${head}\n     3\tthree\n     4\tfour`);
        expect(await run({ command: "view", path: "/memories/n.md", view_range: [0, 2] })).toEqual({ isError: true, output: expect.stringContaining("Invalid `view_range` parameter: [0, 2]") });
        expect(await run({ command: "view", path: "/memories/n.md", view_range: [2, 9] })).toEqual({ isError: true, output: expect.stringContaining("should be smaller than the number of lines in the file: `4`") });
        expect(await run({ command: "view", path: "/memories/n.md", view_range: [3, 2] })).toEqual({ isError: true, output: expect.stringContaining("Invalid `view_range` parameter: [3, 2]") });
        expect(await run({ command: "view", path: "/memories/n.md", view_range: ["a", "b"] })).toEqual({ isError: true, output: expect.stringContaining("Invalid `view_range` parameter") });
      });

      it("lists files and directories 2 levels deep with human-readable sizes, node_modules left out", async () => {
        await run({ command: "create", path: "/memories/notes.md", file_text: "x".repeat(1536) });
        await run({ command: "create", path: "/memories/projects/lumen.md", file_text: "y".repeat(100) });
        await run({ command: "create", path: "/memories/projects/2026/q4.md", file_text: "z".repeat(2048) });
        await run({ command: "create", path: "/memories/projects/2026/deep/plan.md", file_text: "w".repeat(10) });
        await run({ command: "create", path: "/memories/node_modules/pkg.md", file_text: "n" });
        expect(await text("/memories")).toBe(
          [HEADER("/memories"), "3.6K\t/memories", "1.5K\t/memories/notes.md", "2.1K\t/memories/projects/", "2.0K\t/memories/projects/2026/", "100B\t/memories/projects/lumen.md"].join("\n"),
        );
        expect(await text("/memories/projects/")).toBe(
          [HEADER("/memories/projects"), "2.1K\t/memories/projects", "2.0K\t/memories/projects/2026/", "10B\t/memories/projects/2026/deep/", "2.0K\t/memories/projects/2026/q4.md", "100B\t/memories/projects/lumen.md"].join("\n"),
        );
      });

      it("answers a missing path with the documented sentence", async () => {
        expect(await run({ command: "view", path: "/memories/nope.md" })).toEqual({ isError: true, output: "The path /memories/nope.md does not exist. Please provide a valid path." });
      });
    });

    describe("create", () => {
      it("creates a file, directories included, kept character for character", async () => {
        const body = "# Lumen\n- Priya signs.\n\n  trailing  \r\n";
        expect(await run({ command: "create", path: "/memories/a/b/lumen.md", file_text: body })).toEqual({ output: "File created successfully at: /memories/a/b/lumen.md" });
        expect(await made.store.read("agent-a", "a/b/lumen.md")).toBe(body);
      });

      it("refuses an existing file or directory, and a path under a file", async () => {
        await run({ command: "create", path: "/memories/a/x.md", file_text: "1" });
        expect(await run({ command: "create", path: "/memories/a/x.md", file_text: "2" })).toEqual({ isError: true, output: "Error: File /memories/a/x.md already exists" });
        expect(await run({ command: "create", path: "/memories/a", file_text: "2" })).toEqual({ isError: true, output: "Error: File /memories/a already exists" });
        expect((await run({ command: "create", path: "/memories/a/x.md/y.md", file_text: "2" })).isError).toBe(true);
        expect(await made.store.read("agent-a", "a/x.md")).toBe("1");
      });

      it("names a missing parameter", async () => {
        expect(await run({ command: "create", path: "/memories/x.md" })).toEqual({ isError: true, output: "Error: Parameter `file_text` is required for command: create" });
        expect(await run({ command: "frobnicate", path: "/memories/x.md" })).toEqual({ isError: true, output: expect.stringContaining("view, create, str_replace, insert, delete, rename") });
      });
    });

    describe("str_replace", () => {
      const PREFS = "Prefers email.\nTimezone: IST\nPrefers email follow-ups on Fridays.\n";

      it("replaces the one occurrence (replacement text taken literally) and shows the edit", async () => {
        await run({ command: "create", path: "/memories/prefs.md", file_text: PREFS });
        const result = await run({ command: "str_replace", path: "/memories/prefs.md", old_str: "Timezone: IST", new_str: "Timezone: $& $1" });
        expect(result.isError).toBeUndefined();
        expect(result.output).toMatch(/^The memory file has been edited\./);
        expect(result.output).toContain("     2\tTimezone: $& $1");
        expect(await made.store.read("agent-a", "prefs.md")).toBe(PREFS.split("Timezone: IST").join("Timezone: $& $1"));
      });

      it("gives the documented errors: missing file, no occurrence, several occurrences with their lines", async () => {
        await run({ command: "create", path: "/memories/prefs.md", file_text: PREFS });
        expect(await run({ command: "str_replace", path: "/memories/none.md", old_str: "a", new_str: "b" })).toEqual({ isError: true, output: "Error: The path /memories/none.md does not exist. Please provide a valid path." });
        expect(await run({ command: "str_replace", path: "/memories/prefs.md", old_str: "Timezone: PST", new_str: "y" })).toEqual({
          isError: true,
          output: "No replacement was performed, old_str `Timezone: PST` did not appear verbatim in /memories/prefs.md.",
        });
        expect(await run({ command: "str_replace", path: "/memories/prefs.md", old_str: "Prefers email", new_str: "y" })).toEqual({
          isError: true,
          output: "No replacement was performed. Multiple occurrences of old_str `Prefers email` in lines: 1, 3. Please ensure it is unique",
        });
        expect(await made.store.read("agent-a", "prefs.md")).toBe(PREFS);
      });

      it("treats a directory as a file that does not exist", async () => {
        await run({ command: "create", path: "/memories/dir/x.md", file_text: "a" });
        expect(await run({ command: "str_replace", path: "/memories/dir", old_str: "a", new_str: "b" })).toEqual({ isError: true, output: "Error: The path /memories/dir does not exist. Please provide a valid path." });
      });
    });

    describe("insert", () => {
      it("inserts at line 0, between lines and after the last; says the file was edited", async () => {
        await run({ command: "create", path: "/memories/todo.txt", file_text: "b\nd\n" });
        expect(await run({ command: "insert", path: "/memories/todo.txt", insert_line: 0, insert_text: "a" })).toEqual({ output: "The file /memories/todo.txt has been edited." });
        await run({ command: "insert", path: "/memories/todo.txt", insert_line: 2, insert_text: "c\n" });
        await run({ command: "insert", path: "/memories/todo.txt", insert_line: 4, insert_text: "e" });
        expect(await made.store.read("agent-a", "todo.txt")).toBe("a\nb\nc\nd\ne");
      });

      it("gives the documented errors", async () => {
        await run({ command: "create", path: "/memories/todo.txt", file_text: "a\nb\n" });
        expect(await run({ command: "insert", path: "/memories/none.txt", insert_line: 0, insert_text: "x" })).toEqual({ isError: true, output: "Error: The path /memories/none.txt does not exist" });
        expect(await run({ command: "insert", path: "/memories/todo.txt", insert_line: 3, insert_text: "x" })).toEqual({
          isError: true,
          output: "Error: Invalid `insert_line` parameter: 3. It should be within the range of lines of the file: [0, 2]",
        });
        expect(await run({ command: "insert", path: "/memories/todo.txt", insert_line: -1, insert_text: "x" })).toEqual({ isError: true, output: expect.stringContaining("[0, 2]") });
      });
    });

    describe("delete", () => {
      it("deletes a file, and a directory with all it holds", async () => {
        await run({ command: "create", path: "/memories/a.md", file_text: "a" });
        await run({ command: "create", path: "/memories/d/e/f.md", file_text: "f" });
        await run({ command: "create", path: "/memories/d/g.md", file_text: "g" });
        expect(await run({ command: "delete", path: "/memories/a.md" })).toEqual({ output: "Successfully deleted /memories/a.md" });
        expect(await run({ command: "delete", path: "/memories/d" })).toEqual({ output: "Successfully deleted /memories/d" });
        expect(await text("/memories")).toBe(`${HEADER("/memories")}\n0B\t/memories`);
        expect(await made.store.list("agent-a", "")).toEqual([]);
      });

      it("answers a missing path, and keeps /memories itself", async () => {
        expect(await run({ command: "delete", path: "/memories/nope" })).toEqual({ isError: true, output: "Error: The path /memories/nope does not exist" });
        expect((await run({ command: "delete", path: "/memories" })).isError).toBe(true);
      });

      it("removes a directory emptied by deleting its last file", async () => {
        await run({ command: "create", path: "/memories/d/only.md", file_text: "x" });
        await run({ command: "delete", path: "/memories/d/only.md" });
        expect(await run({ command: "view", path: "/memories/d" })).toEqual({ isError: true, output: "The path /memories/d does not exist. Please provide a valid path." });
      });
    });

    describe("rename", () => {
      it("renames a file and moves a directory with its contents", async () => {
        await run({ command: "create", path: "/memories/draft.txt", file_text: "d" });
        await run({ command: "create", path: "/memories/p/a.md", file_text: "a" });
        await run({ command: "create", path: "/memories/p/q/b.md", file_text: "b" });
        expect(await run({ command: "rename", old_path: "/memories/draft.txt", new_path: "/memories/final.txt" })).toEqual({ output: "Successfully renamed /memories/draft.txt to /memories/final.txt" });
        expect(await run({ command: "rename", old_path: "/memories/p", new_path: "/memories/archive/p" })).toEqual({ output: "Successfully renamed /memories/p to /memories/archive/p" });
        expect((await made.store.list("agent-a", "")).map((f) => f.path)).toEqual(["archive/p/a.md", "archive/p/q/b.md", "final.txt"]);
      });

      it("gives the documented errors and never overwrites", async () => {
        await run({ command: "create", path: "/memories/a.md", file_text: "a" });
        await run({ command: "create", path: "/memories/b.md", file_text: "b" });
        await run({ command: "create", path: "/memories/d/x.md", file_text: "x" });
        expect(await run({ command: "rename", old_path: "/memories/none.md", new_path: "/memories/c.md" })).toEqual({ isError: true, output: "Error: The path /memories/none.md does not exist" });
        expect(await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" })).toEqual({ isError: true, output: "Error: The destination /memories/b.md already exists" });
        expect(await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/d" })).toEqual({ isError: true, output: "Error: The destination /memories/d already exists" });
        expect((await run({ command: "rename", old_path: "/memories/d", new_path: "/memories/d/e" })).isError).toBe(true);
        expect(await made.store.read("agent-a", "b.md")).toBe("b");
        expect(await made.store.read("agent-a", "a.md")).toBe("a");
      });
    });

    describe("hostile paths", () => {
      const HOSTILE = [
        "/memories/../etc/passwd",
        "/memories/a/../../secret.md",
        "../memories/x.md",
        "/etc/passwd",
        "/memoriesx/a.md",
        "memories/a.md",
        "/memories/%2e%2e/x.md",
        "/memories/..%2fx.md",
        "/memories/%2E%2E%2Fx.md",
        "/memories/x%00.md",
        "/memories\\..\\x.md",
        "/memories/a\\b.md",
        "/memories/x\u0000.md",
        "/memories/x\n.md",
        "/memories//x.md",
        "/memories/./x.md",
        "/memories/.hidden.md",
        "/memories/..",
        "",
        `/memories/${"a".repeat(300)}.md`,
      ];

      it.each(HOSTILE.map((path) => [JSON.stringify(path), path]))("%s is refused by every command and nothing is written", async (_shown, path) => {
        await run({ command: "create", path: "/memories/keep.md", file_text: "keep" });
        const before = await made.outside?.();
        const answers = [
          await run({ command: "view", path }),
          await run({ command: "create", path, file_text: "pwned" }),
          await run({ command: "str_replace", path, old_str: "keep", new_str: "pwned" }),
          await run({ command: "insert", path, insert_line: 0, insert_text: "pwned" }),
          await run({ command: "delete", path }),
          await run({ command: "rename", old_path: "/memories/keep.md", new_path: path }),
          await run({ command: "rename", old_path: path, new_path: "/memories/moved.md" }),
        ];
        for (const answer of answers) expect(answer.isError, answer.output).toBe(true);
        expect(await made.store.list("agent-a", "")).toEqual([{ path: "keep.md", size: 4 }]);
        expect(await made.store.read("agent-a", "keep.md")).toBe("keep");
        expect(await made.outside?.()).toEqual(before);
      });

      it("names the rule a path breaks", async () => {
        expect((await run({ command: "view", path: "/memories/../etc" })).output).toBe("Error: The path /memories/../etc is not a valid memory path: '.' and '..' are not allowed: a memory path cannot leave /memories.");
        expect((await run({ command: "view", path: "/memories/x\u0000" })).output).toContain('"/memories/x\\u0000"');
      });
    });

    describe("limits", () => {
      it("refuses a file over maxFileBytes, a file past maxFiles, a tree past maxTreeBytes — writing nothing", async () => {
        tool = new MemoryTool({ store: made.store, limits: limits({ maxFileBytes: 10, maxFiles: 2, maxTreeBytes: 15 }), tree: () => "agent-a" });
        expect((await run({ command: "create", path: "/memories/big.md", file_text: "x".repeat(11) })).output).toMatch(/at most 10 bytes/);
        await run({ command: "create", path: "/memories/a.md", file_text: "12345678" });
        expect((await run({ command: "create", path: "/memories/b.md", file_text: "12345678" })).output).toMatch(/more than its limit of 15/);
        await run({ command: "create", path: "/memories/b.md", file_text: "1234" });
        expect((await run({ command: "create", path: "/memories/c.md", file_text: "1" })).output).toMatch(/the most it may hold \(2\)/);
        expect((await run({ command: "str_replace", path: "/memories/a.md", old_str: "1", new_str: "1234567" })).output).toMatch(/at most 10 bytes|limit of 15/);
        expect((await run({ command: "insert", path: "/memories/b.md", insert_line: 1, insert_text: "123" })).output).toMatch(/limit of 15/);
        expect(await made.store.list("agent-a", "")).toEqual([
          { path: "a.md", size: 8 },
          { path: "b.md", size: 4 },
        ]);
      });

      it("refuses paths deeper than maxDepth", async () => {
        tool = new MemoryTool({ store: made.store, limits: limits({ maxDepth: 2 }), tree: () => "agent-a" });
        expect((await run({ command: "create", path: "/memories/a/b/c.md", file_text: "x" })).isError).toBeUndefined();
        expect((await run({ command: "create", path: "/memories/a/b/c/d.md", file_text: "x" })).output).toMatch(/at most 2 directories deep/);
      });
    });

    describe("trees and writers", () => {
      it("keeps each agent's tree apart", async () => {
        const other = new MemoryTool({ store: made.store, limits: limits(), tree: () => "agent-b" });
        await run({ command: "create", path: "/memories/a.md", file_text: "mine" });
        expect((await other.execute({ command: "view", path: "/memories/a.md" })).isError).toBe(true);
        await other.execute({ command: "create", path: "/memories/a.md", file_text: "theirs" });
        expect(await made.store.read("agent-a", "a.md")).toBe("mine");
      });

      it("loses no edit when many inserts and replacements race on one file", async () => {
        await run({ command: "create", path: "/memories/log.md", file_text: "" });
        const n = 24;
        const results = await Promise.all(Array.from({ length: n }, (_, i) => run({ command: "insert", path: "/memories/log.md", insert_line: 0, insert_text: `edit ${i}\n` })));
        expect(results.filter((r) => r.isError)).toEqual([]);
        const lines = (await made.store.read("agent-a", "log.md"))!.split("\n").filter(Boolean).sort();
        expect(lines).toEqual(Array.from({ length: n }, (_, i) => `edit ${i}`).sort());
      });
    });
  });
}
